import { SignatureV4 } from '@smithy/signature-v4';
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { dynamoClient } from './dynamodb-client.ts';
import { backOff } from '../core/backoff.ts';

type SourceData = string | ArrayBuffer | ArrayBufferView;
type SignableRequest = Parameters<SignatureV4['sign']>[0] & { headers: Record<string, string> };

/**
 * One AWS request signed with the SDK's own SigV4 signer, sent with Node's `fetch`: for the few
 * calls whose SDK client would outweigh everything else in a function (docs/operations.md#bundles).
 * The S3 client is ~170 KB minified (the XML protocol and every operation's schema), the Secrets
 * Manager client ~13 KB; the signer is in every bundle already through the DynamoDB client, and so
 * are the credentials and region used here: the DynamoDB client's, resolved by the same chain as
 * every client's (the environment on Lambda, infra/bundling.ts). What the SDK client would add
 * and this keeps: its standard retries (3 attempts, jittered exponential backoff, on throttling,
 * 5xx and network errors) and an error named by the service's error code.
 */

/** SHA-256 and HMAC-SHA256 on node:crypto, in the shape the signer takes. */
class NodeSha256 {
  private hash: Hash | Hmac;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }

  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }

  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }

  reset(): void {
    this.hash = this.fresh();
  }

  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(this.secret));
  }
}

function bytesOf(data: SourceData): Uint8Array | string {
  if (typeof data === 'string' || data instanceof Uint8Array) return data;
  return ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
}

/** The region every client of the container uses. */
export const awsRegion = (): Promise<string> => dynamoClient.config.region();

/** A signer for `service` (`uriEscapePath: false` for S3, whose paths are escaped once already). */
export function signerFor(service: string, options: { uriEscapePath?: boolean } = {}): SignatureV4 {
  return new SignatureV4({
    service,
    region: awsRegion,
    credentials: () => dynamoClient.config.credentials(),
    sha256: NodeSha256,
    uriEscapePath: options.uriEscapePath ?? true,
  });
}

/** An AWS service's answer other than 2xx, named by its error code as the SDK names its errors. */
export class AwsServiceError extends Error {
  constructor(
    name: string,
    message: string,
    readonly $metadata: { httpStatusCode: number; requestId: string | undefined },
  ) {
    super(message);
    this.name = name;
  }
}

export interface SignedFetchRequest {
  url: URL;
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** Per attempt: until the whole answer is in, or only its headers where `streamsBody` is set. */
  timeoutMs?: number;
  /**
   * The caller reads the body as it streams, for as long as its work takes (an import file): the
   * timeout then covers the wait for the answer's headers only, not the body.
   */
  streamsBody?: boolean;
  /** The error code and message of a non-2xx answer's body. */
  errorOf: (status: number, body: string, headers: Headers) => { code: string; message: string };
}

/** The awsJson error shape: `__type` (possibly namespaced, `ns#Code`) in the body or the header. */
export function awsJsonError(status: number, body: string, headers: Headers): { code: string; message: string } {
  let parsed: { __type?: unknown; message?: unknown; Message?: unknown } = {};
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    // Not JSON: named by the header or the status below.
  }
  const type = headers.get('x-amzn-errortype') ?? (typeof parsed.__type === 'string' ? parsed.__type : String(status));
  const code = type.split(':')[0]?.split('#').pop() ?? String(status);
  const message = typeof parsed.message === 'string' ? parsed.message : typeof parsed.Message === 'string' ? parsed.Message : `The service answered ${status}`;
  return { code, message };
}

const MAX_ATTEMPTS = 3;
const BACKOFF_BASE_MS = 100;
const BACKOFF_CAP_MS = 20_000;
const THROTTLING_CODES = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestThrottledException',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'TransactionInProgressException',
  'RequestLimitExceeded',
  'BandwidthLimitExceeded',
  'LimitExceededException',
  'RequestThrottled',
  'SlowDown',
  'PriorRequestNotComplete',
  'EC2ThrottledException',
]);
const TRANSIENT_CODES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);

function retryable(error: unknown): boolean {
  if (!(error instanceof AwsServiceError)) return true; // network failures and timeouts, as the SDK retries them
  const status = error.$metadata.httpStatusCode;
  return status >= 500 || status === 429 || THROTTLING_CODES.has(error.name) || TRANSIENT_CODES.has(error.name);
}

async function attempt(signer: SignatureV4, request: SignedFetchRequest): Promise<Response> {
  const { url } = request;
  const signable: SignableRequest = {
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: { ...request.headers, host: url.host },
    body: request.body,
  };
  const signed = await signer.sign(signable);
  // fetch sets `host` from the URL itself (the same value that was signed).
  const { host: _host, ...headers } = signed.headers;
  const timeoutMs = request.timeoutMs ?? 30_000;
  let response: Response;
  if (request.streamsBody) {
    const headersArrived = new AbortController();
    const timer = setTimeout(() => headersArrived.abort(new DOMException('The answer did not start in time', 'TimeoutError')), timeoutMs);
    try {
      response = await fetch(url, { method: request.method, headers, body: request.body, signal: headersArrived.signal });
    } finally {
      clearTimeout(timer);
    }
  } else {
    response = await fetch(url, { method: request.method, headers, body: request.body, signal: AbortSignal.timeout(timeoutMs) });
  }
  if (response.ok) return response;
  const body = await response.text();
  const { code, message } = request.errorOf(response.status, body, response.headers);
  throw new AwsServiceError(code, message, {
    httpStatusCode: response.status,
    requestId: response.headers.get('x-amz-request-id') ?? response.headers.get('x-amzn-requestid') ?? undefined,
  });
}

/** Sends `request`, signed, and retries it as the SDK's standard mode would. */
export async function signedFetch(signer: SignatureV4, request: SignedFetchRequest): Promise<Response> {
  for (let attempts = 1; ; attempts += 1) {
    try {
      return await attempt(signer, request);
    } catch (error) {
      if (attempts >= MAX_ATTEMPTS || !retryable(error)) throw error;
      await backOff(attempts, BACKOFF_BASE_MS, BACKOFF_CAP_MS);
    }
  }
}
