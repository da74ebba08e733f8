import { SQSClient } from '@aws-sdk/client-sqs';

/** The SQS client of the container (see dynamodb-client.ts for why each client has its own module). */
export const sqsClient = new SQSClient({});
