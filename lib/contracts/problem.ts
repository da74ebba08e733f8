import * as z from 'zod';

/** RFC 9457 problem document with the stable `code` and `traceId` (docs/api-guide.md "Errors: problem documents"). */
export const fieldErrorSchema = z.object({
  location: z.enum(['query', 'path', 'header', 'body', 'form']),
  name: z.string().optional(),
  pointer: z.string().optional(),
  code: z.string(),
  message: z.string(),
});

export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int().min(400).max(599),
    detail: z.string().optional(),
    instance: z.string(),
    code: z.string().regex(/^customer-api\.[a-z0-9-]+\.[a-z0-9-]+$/),
    traceId: z.string().min(1),
    errors: z.array(fieldErrorSchema).optional(),
    requiredScope: z.string().optional(),
  })
  .meta({ id: 'ProblemDetails' });

export type ProblemDocument = z.infer<typeof problemSchema>;
