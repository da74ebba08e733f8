import type { FetchLike } from '../../../../client/types.ts';

/** A scripted transport for client unit tests: records every request, answers from a script. */

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: Headers;
  /** The body as text (multipart bodies included), '' without one. */
  body: string;
  /** The body as a form, for multipart requests. */
  form: FormData | undefined;
}

export type Answer = Response | Error;

export interface FakeFetch {
  fetch: FetchLike;
  requests: RecordedRequest[];
}

/** `answer` is called with each request and its index (0 for the first). */
export function fakeFetch(answer: (request: RecordedRequest, index: number) => Answer | Promise<Answer>): FakeFetch {
  const requests: RecordedRequest[] = [];
  const fetch: FetchLike = async (request) => {
    const isMultipart = request.headers.get('content-type')?.startsWith('multipart/form-data') ?? false;
    const form = isMultipart ? await request.clone().formData() : undefined;
    const recorded: RecordedRequest = { method: request.method, url: new URL(request.url), headers: request.headers, body: await request.text(), form };
    requests.push(recorded);
    const result = await answer(recorded, requests.length - 1);
    if (result instanceof Error) throw result;
    return result;
  };
  return { fetch, requests };
}

/** Answers in turn; the last one repeats. */
export function scriptedFetch(...answers: Array<() => Answer>): FakeFetch {
  return fakeFetch((_request, index) => (answers[Math.min(index, answers.length - 1)] ?? (() => new Error('no answer')))());
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

export function problem(status: number, code: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}): Response {
  const body = {
    type: `urn:problem-type:${code}`,
    title: `Title of ${code}`,
    status,
    detail: `Detail of ${code}`,
    instance: '/v1/x',
    code,
    traceId: `trace-${status}`,
    ...extra,
  };
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/problem+json', 'x-trace-id': `trace-${status}`, ...headers } });
}

/** A fetch failure as undici reports one (connection refused, reset…). */
export const networkError = () => new TypeError('fetch failed', { cause: new Error('ECONNRESET') });

/** A sleep that returns at once and remembers how long it was asked to wait. */
export function recordingSleep() {
  const sleeps: number[] = [];
  const sleep = async (ms: number, signal?: AbortSignal) => {
    signal?.throwIfAborted();
    sleeps.push(ms);
  };
  return { sleep, sleeps };
}
