import { S3Client } from '@aws-sdk/client-s3';

/**
 * The S3 client of the container (see dynamodb-client.ts for why each client has its own module).
 * Path-style addressing where the local S3 (s3rver) needs it; AWS uses virtual-hosted style.
 */
export const s3Client = new S3Client({ forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true' });
