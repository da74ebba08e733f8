import { baseHeaders } from './headers.ts';
import type { HandlerResult, HttpResponse, RequestState } from './types.ts';

/**
 * Serializes a handler result. This runs inside the handler step, not in an `after` phase, so
 * a stored idempotent response is exactly what the client first received.
 */
export function toHttpResponse(result: HandlerResult, state: RequestState): HttpResponse {
  if ('response' in result) return result.response;
  const headers = { ...baseHeaders(state), ...result.headers };
  if ('empty' in result) return { statusCode: result.status, headers, body: '' };
  if ('text' in result) {
    return { statusCode: result.status, headers: { ...headers, 'Content-Type': result.mediaType }, body: result.text };
  }
  const mediaType = state.responseMediaType ?? 'application/json';
  return {
    statusCode: result.status,
    headers: { ...headers, 'Content-Type': `${mediaType}; charset=utf-8` },
    body: JSON.stringify(result.json),
  };
}
