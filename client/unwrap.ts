import { ApiProblemError } from './errors/api-problem-error.ts';

/** What every openapi-fetch call resolves to: a success with `data` or a failure with `error`. */
type FetchResult = { data?: unknown; error?: unknown; response: Response };

/** The `data` of the success member of a call's result type. */
export type SuccessData<Result> = Result extends { data: infer Data; error?: never } ? Data : never;

/**
 * The data of a successful call, or an ApiProblemError for any other answer
 * (docs/client.md#typed-errors).
 */
export async function unwrap<Result extends FetchResult>(pending: Promise<Result>): Promise<SuccessData<Result>> {
  return (await unwrapResponse(pending)).data;
}

/** As unwrap, keeping the response for its headers (`ETag`, `Location`, `Idempotent-Replayed`). */
export async function unwrapResponse<Result extends FetchResult>(pending: Promise<Result>): Promise<{ data: SuccessData<Result>; response: Response }> {
  const result = await pending;
  if (!result.response.ok) throw ApiProblemError.fromResponse(result.response, result.error);
  return { data: result.data as SuccessData<Result>, response: result.response };
}
