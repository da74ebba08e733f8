import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURSOR_SECRET_ARN_ENV, CURSOR_SECRET_ENV } from '../../../lib/platform/config/cursor-env.ts';
import { cursorKeys } from '../../../lib/platform/config/cursors.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { secretsManagerReader } from '../../../lib/platform/aws/cursor-secret.ts';

// The reader sends the GetSecretValue request the SDK client would (SigV4 signing with the SDK's signer,
// the awsJson1_1 protocol, the service's endpoint variable). No Secrets Manager runs locally, so
// the far end is a minimal server speaking GetSecretValue's wire format, which also counts the
// reads a container makes (docs/operations.md#cursor-secret).

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:customer-api-dev-cursor-AbCdEf';
const KEY_A = 'a'.repeat(48);
const KEY_B = 'b'.repeat(48);

interface SecretsEndpoint {
  value: string;
  /** Answers to give before the value, one per read: status and awsJson error type. */
  failures: { status: number; type: string }[];
  reads: { target: string | undefined; secretId: unknown; signed: boolean }[];
}

const endpoint: SecretsEndpoint = { value: KEY_A, failures: [], reads: [] };
let server: Server;
const savedEnv = { ...process.env };

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  server = createServer((request, response) => {
    void bodyOf(request).then((body) => {
      const { SecretId } = JSON.parse(body) as { SecretId?: unknown };
      endpoint.reads.push({
        target: request.headers['x-amz-target'] as string | undefined,
        secretId: SecretId,
        signed: String(request.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256'),
      });
      const failure = endpoint.failures.shift();
      if (failure) {
        response.writeHead(failure.status, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify({ __type: failure.type, message: `failed with ${failure.type}` }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ ARN: SECRET_ARN, Name: 'customer-api-dev-cursor', SecretString: endpoint.value, VersionId: `v${endpoint.reads.length}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  });
});

afterAll(async () => {
  process.env = savedEnv;
  await new Promise((resolve) => server.close(resolve));
});

describe('secretsManagerReader', () => {
  it('reads the value with one signed GetSecretValue per call', async () => {
    // Prepare
    endpoint.reads = [];
    const read = secretsManagerReader(SECRET_ARN);

    // Act
    const first = await read();
    const second = await read();

    // Assess
    expect([first, second]).toEqual([KEY_A, KEY_A]);
    expect(endpoint.reads).toEqual([
      { target: 'secretsmanager.GetSecretValue', secretId: SECRET_ARN, signed: true },
      { target: 'secretsmanager.GetSecretValue', secretId: SECRET_ARN, signed: true },
    ]);
  });
});

describe('secretsManagerReader when Secrets Manager fails', () => {
  it('retries a server error as the SDK client would, and succeeds', async () => {
    // Prepare
    endpoint.reads = [];
    endpoint.value = KEY_A;
    endpoint.failures = [{ status: 500, type: 'InternalServiceError' }];

    // Act
    const value = await secretsManagerReader(SECRET_ARN)();

    // Assess
    expect(value).toBe(KEY_A);
    expect(endpoint.reads).toHaveLength(2);
  });

  it('rejects at once with the service’s error code for a client error', async () => {
    // Prepare
    endpoint.reads = [];
    endpoint.failures = [{ status: 400, type: 'ResourceNotFoundException' }];

    // Act
    const read = secretsManagerReader(SECRET_ARN)();

    // Assess
    await expect(read).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      message: 'failed with ResourceNotFoundException',
      $metadata: { httpStatusCode: 400 },
    });
    expect(endpoint.reads).toHaveLength(1);
  });
});

describe('cursorKeys with CURSOR_SECRET_ARN', () => {
  it('reads the secret once per container, however many cursors it signs and checks', async () => {
    // Prepare
    endpoint.reads = [];
    endpoint.value = JSON.stringify({ current: KEY_B, previous: KEY_A });
    process.env[CURSOR_SECRET_ARN_ENV] = SECRET_ARN;
    delete process.env[CURSOR_SECRET_ENV];
    const binding = { organizationId: 'org_a', endpoint: 'GET /v1/events', filters: {} };
    const issuedBeforeRotation = new CursorCodec(KEY_A).encode(1, binding);

    // Act
    const codec = new CursorCodec(await cursorKeys());
    for (let request = 0; request < 500; request += 1) await codec.decode(codec.encode(request, binding), binding);
    const stillAccepted = await codec.decode(issuedBeforeRotation, binding);

    // Assess
    expect(endpoint.reads).toHaveLength(1);
    expect(stillAccepted).toBe(1);
    await expect(new CursorCodec(KEY_B).decode(codec.encode(2, binding), binding)).resolves.toBe(2);
  });

  it('without the ARN, takes the key from CURSOR_SECRET and reads nothing', async () => {
    endpoint.reads = [];
    delete process.env[CURSOR_SECRET_ARN_ENV];
    process.env[CURSOR_SECRET_ENV] = KEY_A;
    const keys = await cursorKeys();
    expect(keys.keys()).toEqual({ signing: KEY_A, verifying: [KEY_A] });
    expect(endpoint.reads).toHaveLength(0);
  });
});
