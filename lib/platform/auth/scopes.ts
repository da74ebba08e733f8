/** Scopes (docs/api-guide.md "Authentication and scopes"); a key carries a subset of them. */
export const SCOPES = [
  'imports:read',
  'imports:write',
  'attachments:read',
  'attachments:write',
  'audit:read',
  'labels:read',
  'boms:read',
  'boms:write',
  'events:read',
  'inventory:read',
  'inventory:write',
  'stock:write',
  'webhooks:read',
  'webhooks:write',
  'exports:read',
  'exports:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
