/**
 * Every AWS client, for tooling and tests. Store modules import the one client they use from its
 * own module instead: importing this one constructs all of them, and a function that does would
 * bundle S3 and SQS whatever it needs (test/infra/bundle-contents.test.ts fails on that).
 */
export { documentClient, dynamoClient } from './dynamodb-client.ts';
export { s3Client } from './s3-client.ts';
export { sqsClient } from './sqs-client.ts';
