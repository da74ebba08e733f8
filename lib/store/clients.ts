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
