import { ApiError, UniqueKeyTakenError } from '../../platform/core/errors.ts';

/** The problems of the BOM area with their stable codes (docs/boms.md "Errors"). */

export class BomCodeTakenError extends UniqueKeyTakenError {
  constructor(code: string) {
    super(409, 'customer-api.boms.code-taken', 'Conflict', { detail: `Another BOM of the organization has the code '${code}'.` });
    this.name = 'BomCodeTakenError';
  }
}

export class RevisionConflictError extends ApiError {
  constructor(current: number, detail?: string) {
    super(409, 'customer-api.boms.revision-conflict', 'Conflict', {
      detail: detail ?? `The BOM is at revision ${current}; read it again and apply your change to that revision.`,
    });
    this.name = 'RevisionConflictError';
  }
}
