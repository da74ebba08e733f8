import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachmentDisposition } from '../../../lib/attachments/domain/file-name.ts';
import { AttachmentObjectsStore } from '../../../lib/attachments/store/attachment-objects.ts';

// The attachment routes sign their S3 requests themselves (lib/attachments/store/attachment-objects.ts); the
// download URL they hand out must be the one the S3 client and its presigner would have signed,
// byte for byte, in both addressing styles (AWS's virtual-hosted, the local S3's path style).

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session/token+=' };
const REGION = 'eu-west-1';
const savedEnv = { ...process.env };

beforeAll(() => {
  Object.assign(process.env, {
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    AWS_SESSION_TOKEN: CREDENTIALS.sessionToken,
  });
});

afterAll(() => {
  process.env = savedEnv;
});

const addressing = [
  { style: 'virtual-hosted (AWS)', endpoint: undefined, forcePathStyle: false },
  { style: 'path (local S3)', endpoint: 'http://127.0.0.1:4569', forcePathStyle: true },
] as const;

const segment = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }).filter((value) => !value.includes('/') && value !== '.' && value !== '..');

describe.each(addressing)('the download URL, $style addressing', ({ endpoint, forcePathStyle }) => {
  it('is the URL getSignedUrl signs for the same GetObject', async () => {
    // Prepare
    if (endpoint === undefined) delete process.env.AWS_ENDPOINT_URL_S3;
    else process.env.AWS_ENDPOINT_URL_S3 = endpoint;
    process.env.S3_FORCE_PATH_STYLE = String(forcePathStyle);
    const client = new S3Client({ region: REGION, credentials: CREDENTIALS, forcePathStyle, ...(endpoint ? { endpoint } : {}) });
    const store = new AttachmentObjectsStore('files-bucket-1a2b3c');

    // Act and Assess
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
        fc.constantFrom('application/pdf', 'image/png', 'text/plain; charset=utf-8', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'),
        fc.integer({ min: 1, max: 604_800 }),
        fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2035-01-01T00:00:00Z'), noInvalidDate: true }),
        async (segments, fileName, contentType, expiresInSeconds, signingDate) => {
          const key = `attachments/${segments.join('/')}`;
          const expected = await getSignedUrl(
            client,
            new GetObjectCommand({
              Bucket: 'files-bucket-1a2b3c',
              Key: key,
              ResponseContentDisposition: attachmentDisposition(fileName),
              ResponseContentType: contentType,
            }),
            { expiresIn: expiresInSeconds, signingDate },
          );
          expect(await store.downloadUrl(key, { fileName, contentType, expiresInSeconds, signingDate })).toBe(expected);
        },
      ),
      { numRuns: 150 },
    );
  });
});
