import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The DynamoDB client of the container, built at cold start. Each AWS client has its own module
 * so that a function bundles (and constructs) only the clients its stores use: a read route never
 * carries S3 or SQS. The endpoint comes from the SDK's standard `AWS_ENDPOINT_URL_DYNAMODB`, which
 * the local runtime sets and AWS leaves unset.
 */
export const dynamoClient = new DynamoDBClient({});

export const documentClient = DynamoDBDocumentClient.from(dynamoClient, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
});
