// The attachments area's stored kinds, declared once with their keys (docs/architecture.md "Storage: the entity layer"):
// no other module writes these key strings. Each is marked pure, so a function bundles only what its stores use.
import { defineEntity } from '../../platform/dynamo/entity.ts';

/** Sort-key prefix of an attachment's entries in its lists. */
export const ATTACHMENT_LIST_PREFIX = 'ATT';
/** The organization's attachments, and a target's. */
export const attachmentsOf = (organizationId: string) => `ORG#${organizationId}#ATTS`;
export const attachmentsOfTarget = (organizationId: string, targetKind: string, targetId: string) => `ORG#${organizationId}#ATTS#${targetKind}#${targetId}`;

/** An attachment by id. */
export const attachmentEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; attachmentId: string }>({
  type: 'attachment',
  schemaVersion: 1,
  key: ({ organizationId, attachmentId }) => ({ pk: `ORG#${organizationId}#${attachmentId}`, sk: 'ATT' }),
});

/** An attachment's entry in a list: the organization's (target undefined) or its target's. */
export const attachmentListEntryEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; attachmentId: string; target?: { kind: string; id: string } }>({
  type: 'attachment-list-entry',
  schemaVersion: 1,
  key: ({ organizationId, attachmentId, target }) => ({
    pk: target ? attachmentsOfTarget(organizationId, target.kind, target.id) : attachmentsOf(organizationId),
    sk: `${ATTACHMENT_LIST_PREFIX}#${attachmentId}`,
  }),
});
