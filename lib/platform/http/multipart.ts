import { Busboy } from '@fastify/busboy';
import { ApiError, ValidationError } from '../core/errors.ts';
import type { UploadedFile } from '../contracts/uploaded-file.ts';
import type { MultipartLimits } from '../contracts/route-types.ts';
import { header } from './headers.ts';
import type { HttpEvent } from './types.ts';

/**
 * multipart/form-data parsing with busboy (the parser behind @middy/http-multipart-body-parser).
 * We drive busboy ourselves because that middleware ignores busboy's limit events (extra parts
 * vanish silently) and reports every failure as 415; here a too-large file is a 413, too many
 * parts or a second file a 400, and nothing is dropped without saying so.
 */

export type { MultipartLimits };

export interface MultipartForm {
  fields: Record<string, string>;
  files: UploadedFile[];
}

const MULTIPART_CONTENT_TYPE = /^multipart\/form-data\s*;/i;

function unsupported(): ApiError {
  return new ApiError(415, 'customer-api.request.unsupported-media-type', 'Unsupported media type', {
    detail: 'Send this request as multipart/form-data with a boundary.',
  });
}

function formError(name: string, code: string, message: string): ValidationError {
  return new ValidationError([{ location: 'form', name, code, message }]);
}

export type MultipartParser = (event: HttpEvent, limits: MultipartLimits) => Promise<MultipartForm>;

export const parseMultipart: MultipartParser = (event, limits) => {
  const contentType = header(event, 'content-type') ?? '';
  // Busboy reads the parameters (boundary, charset) in any order and throws without a boundary.
  if (!MULTIPART_CONTENT_TYPE.test(contentType)) return Promise.reject(unsupported());
  const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');

  return new Promise((resolve, reject) => {
    const form: MultipartForm = { fields: {}, files: [] };
    let failure: Error | undefined;
    const fail = (error: Error) => {
      failure ??= error;
    };
    const malformed = () => new ValidationError([{ location: 'form', name: 'form', code: 'malformed', message: 'The multipart body is malformed.' }]);
    let parser: Busboy;
    try {
      parser = new Busboy({
        headers: { 'content-type': contentType },
        limits: {
          // One more than allowed, so that exceeding is observable rather than silent.
          fileSize: limits.maxFileBytes,
          files: limits.maxFiles,
          fields: limits.maxFields,
          parts: limits.maxFiles + limits.maxFields,
          fieldSize: limits.maxFieldBytes,
          // A part needs Content-Disposition and perhaps Content-Type: 20 header lines are plenty.
          headerPairs: 20,
        },
      });
    } catch {
      reject(unsupported());
      return;
    }
    parser.on('file', (fieldName, stream, fileName) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        fail(
          new ApiError(413, 'customer-api.request.too-large', 'File too large', {
            detail: `Files are limited to ${limits.maxFileBytes} bytes.`,
          }),
        );
      });
      // A part cut off before its boundary errors on the file stream, not on the parser.
      stream.on('error', () => fail(malformed()));
      stream.on('end', () => {
        form.files.push({ fieldName, fileName: fileName ?? '', content: Buffer.concat(chunks) });
      });
    });
    parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (valueTruncated) fail(formError(name, 'too-long', `Form fields are limited to ${limits.maxFieldBytes} bytes.`));
      else if (Object.hasOwn(form.fields, name)) fail(formError(name, 'repeated', 'Give this field at most once.'));
      else form.fields[name] = value;
    });
    parser.on('filesLimit', () => fail(formError('file', 'too-many-files', `At most ${limits.maxFiles} file(s) per request.`)));
    parser.on('fieldsLimit', () => fail(formError('form', 'too-many-fields', `At most ${limits.maxFields} fields per request.`)));
    parser.on('partsLimit', () => fail(formError('form', 'too-many-parts', 'The form has too many parts.')));
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      if (failure) reject(failure);
      else resolve(form);
    };
    parser.on('error', () => {
      fail(malformed());
      settle();
    });
    parser.on('finish', settle);
    parser.end(body);
  });
};
