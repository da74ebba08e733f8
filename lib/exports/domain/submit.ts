import { NotFoundError, ValidationError, type ApiError, type FieldError } from '../../platform/core/errors.ts';
import { newId } from '../../platform/core/ids.ts';
import type { CommandPlan } from '../../platform/write/ports.ts';
import { exportObjectKey, type ExportFilters, type ExportFormat, type ExportJob, type ExportJobState } from './job.ts';
import { exportKind, type ExportKindDeclaration } from './kinds.ts';

/**
 * Submitting an export (docs/exports.md "Routes"): the job and its `export.submitted` audit entry
 * commit in one transaction, then the job is handed to the queue. A hand-off that fails leaves the
 * job in the dispatch index, where the sweeper finds it: no export stays `queued`.
 */

export interface ExportSubmitPorts<Write = unknown> {
  jobs: { createWrite(job: ExportJobState): Write; markDispatched(organizationId: string, jobId: string): Promise<void> };
  queue: { send(message: { organizationId: string; jobId: string }): Promise<void> };
  log?: (message: string, fields: Record<string, unknown>) => void;
}

export interface ExportRequest {
  kind: string;
  format: ExportFormat;
  filters: Record<string, unknown>;
}

const UTC_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const MAX_FILTER_LENGTH = 256;

export function unknownExportKind(kind: string): ApiError {
  return new ValidationError([
    { location: 'body', pointer: '/kind', code: 'invalid-value', message: `There is no export kind '${kind}'. GET /v1/exports/kinds lists them.` },
  ]);
}

/** The filters as the kind declares them: unknown names, wrong types and missing required ones are 400s, all at once. */
export function validateFilters(declaration: ExportKindDeclaration, filters: Record<string, unknown>): ExportFilters {
  const errors: FieldError[] = [];
  const valid: ExportFilters = {};
  const declared = new Map(declaration.filters.map((filter) => [filter.name, filter]));
  for (const name of Object.keys(filters)) {
    if (!declared.has(name))
      errors.push({ location: 'body', pointer: `/filters/${name}`, code: 'unknown-filter', message: `Kind '${declaration.kind}' has no filter '${name}'.` });
  }
  for (const filter of declaration.filters) {
    const value = filters[filter.name];
    const pointer = `/filters/${filter.name}`;
    if (value === undefined || value === null) {
      if (filter.required)
        errors.push({ location: 'body', pointer, code: 'required', message: `Kind '${declaration.kind}' requires the filter '${filter.name}'.` });
      continue;
    }
    if (filter.type === 'boolean') {
      if (typeof value === 'boolean') valid[filter.name] = value;
      else errors.push({ location: 'body', pointer, code: 'invalid-type', message: 'Must be a boolean.' });
      continue;
    }
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_FILTER_LENGTH) {
      errors.push({ location: 'body', pointer, code: 'invalid-type', message: `Must be a string of 1 to ${MAX_FILTER_LENGTH} characters.` });
      continue;
    }
    if (filter.type === 'date-time' && (!UTC_DATE_TIME.test(value) || Number.isNaN(Date.parse(value)))) {
      errors.push({ location: 'body', pointer, code: 'invalid-date-time', message: 'Must be a UTC date-time such as 2026-01-31T00:00:00Z.' });
      continue;
    }
    if (filter.values !== undefined && !filter.values.includes(value)) {
      errors.push({ location: 'body', pointer, code: 'invalid-value', message: `Must be one of: ${filter.values.join(', ')}.` });
      continue;
    }
    valid[filter.name] = value;
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return valid;
}

export function newExportJob(organizationId: string, request: ExportRequest, now: Date): ExportJobState {
  const declaration = exportKind(request.kind);
  if (!declaration) throw unknownExportKind(request.kind);
  const filters = validateFilters(declaration, request.filters);
  const id = newId('exp', now.getTime());
  return {
    id,
    kind: declaration.kind,
    format: request.format,
    filters,
    status: 'queued',
    rowCount: 0,
    fileSizeBytes: null,
    sha256: null,
    asOfEventId: null,
    submittedAt: now.toISOString(),
    startedAt: null,
    completedAt: null,
    expiresAt: null,
    failure: null,
    organizationId,
    objectKey: exportObjectKey(organizationId, id, request.format),
    progress: null,
    progressAt: now.toISOString(),
  };
}

export class ExportSubmitter<Write = unknown> {
  constructor(private readonly ports: ExportSubmitPorts<Write>) {}

  prepare(organizationId: string, request: ExportRequest, now = new Date()): CommandPlan<ExportJobState, Write> {
    const job = newExportJob(organizationId, request, now);
    return {
      writes: [this.ports.jobs.createWrite(job)],
      audit: { kind: 'export.submitted', target: { kind: 'export', id: job.id }, summary: `Export of ${job.kind} (${job.format}) submitted`, changes: [] },
      events: [],
      result: job,
    };
  }

  /** Hands a committed job to the queue; a failure is left to the sweeper, not to the client. */
  async dispatch(job: ExportJobState): Promise<void> {
    try {
      await this.ports.queue.send({ organizationId: job.organizationId, jobId: job.id });
      await this.ports.jobs.markDispatched(job.organizationId, job.id);
    } catch (error) {
      this.ports.log?.('export job not dispatched; the sweeper will retry', { jobId: job.id, error: (error as Error).message });
    }
  }
}

export function exportNotFound(): NotFoundError {
  return new NotFoundError('exports', 'The export does not exist or has expired.');
}

export type { ExportJob };
