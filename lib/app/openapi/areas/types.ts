import type { RouteId } from '../../routes.ts';
import type { OperationEntry } from '../../operations.ts';
import type { ProblemCodesByStatus } from '../../problem-codes.ts';

/**
 * What one area adds to the OpenAPI document besides its routes (lib/<area>/routes.ts, passed as
 * `Routes`): its tag's description, each route's operation contract paired with its success body,
 * and the problem codes only the area's own domain code throws. An operation missing here, or
 * one of another area, is a type error.
 */
export interface OpenApiArea<Routes extends ReadonlyArray<{ operationId: RouteId; tag: string }>> {
  /** The tag every route of the area carries, and its description in the document. */
  tag: { name: Routes[number]['tag']; description: string };
  /** For the OpenAPI generator and the tests only: a function imports its own contract, never this. */
  operations: { readonly [Id in Routes[number]['operationId']]: OperationEntry<Id> };
  /** By operation and status; lib/app/problem-codes.ts derives every other code from the route. */
  problemCodes: { readonly [Id in Routes[number]['operationId']]?: ProblemCodesByStatus };
}
