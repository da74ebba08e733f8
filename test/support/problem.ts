import { expect } from 'vitest';
import { problemSchema, type ProblemDocument } from '../../lib/platform/contracts/problem.ts';

/** Asserts a response is an RFC 9457 problem document with the given status and code. */
export async function expectProblem(response: Response, status: number, code?: string): Promise<ProblemDocument> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  const body: unknown = await response.json();
  const parsed = problemSchema.safeParse(body);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  const problem = parsed.data as ProblemDocument;
  expect(problem.status).toBe(status);
  if (code) expect(problem.code).toBe(code);
  expect(JSON.stringify(problem)).not.toMatch(/at .+\.ts:\d+/);
  return problem;
}
