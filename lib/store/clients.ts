import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * One client per container, built at cold start. Endpoints come from the SDK's standard
 * `AWS_ENDPOINT_URL_<SERVICE>` variables, which the local runtime sets and AWS leaves unset.
 */
export const dynamoClient = new DynamoDBClient({});

export const documentClient = DynamoDBDocumentClient.from(dynamoClient, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
});

/** Path-style addressing where the local S3 (s3rver) needs it; AWS uses virtual-hosted style. */
export const s3Client = new S3Client({ forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true' });

export const sqsClient = new SQSClient({});
