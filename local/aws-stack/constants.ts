/**
 * Region and credentials of the local stack. s3rver verifies SigV4 signatures against its one
 * hard-coded key pair (S3RVER/S3RVER), so every client uses that pair; DynamoDB Local (-sharedDb)
 * and fauxqs accept any credentials. fauxqs puts the region into queue ARNs.
 */
export const LOCAL_REGION = 'us-east-1';
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;
export const DEFAULT_RESOURCE_PREFIX = 'customer-api-local';
