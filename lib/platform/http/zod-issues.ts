import type * as z from '../contracts/zod.ts';
import type { FieldError, ProblemLocation } from '../core/errors.ts';

/** Stable, kebab-case error codes for validation problems, independent of zod's wording. */
function codeFor(issue: z.core.$ZodIssue, input: unknown): string {
  if (input === undefined && issue.code !== 'unrecognized_keys') return 'required';
  switch (issue.code) {
    case 'invalid_type':
      return 'invalid-type';
    case 'too_big':
      return issue.origin === 'string' || issue.origin === 'array' ? 'too-long' : 'out-of-range';
    case 'too_small':
      return issue.origin === 'string' || issue.origin === 'array' ? 'too-short' : 'out-of-range';
    case 'invalid_format':
      return 'invalid-format';
    case 'invalid_value':
      return 'invalid-value';
    case 'unrecognized_keys':
      return 'unknown-field';
    default:
      return 'invalid-value';
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

function escapePointerSegment(segment: PropertyKey): string {
  return String(segment).replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * Flattens zod issues into problem `errors`. Parameters (query, path, header, form) are named by
 * their top-level key; body errors carry a JSON Pointer.
 */
export function toFieldErrors(error: z.core.$ZodError, location: ProblemLocation, input: unknown): FieldError[] {
  const fieldErrors: FieldError[] = [];
  for (const issue of error.issues) {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : [issue.path];
    for (const path of keys) {
      const code = codeFor(issue, valueAt(input, path));
      const message = code === 'required' ? 'Required.' : code === 'unknown-field' ? 'Not a known field or parameter.' : issue.message;
      if (location === 'body') {
        fieldErrors.push({ location, pointer: path.map((segment) => `/${escapePointerSegment(segment)}`).join(''), code, message });
      } else {
        fieldErrors.push({ location, name: String(path[0] ?? ''), code, message });
      }
    }
  }
  return fieldErrors;
}
