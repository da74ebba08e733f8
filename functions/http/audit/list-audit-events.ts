import { chainDependencies } from '../../../lib/app/composition.ts';
import { cursorKeys } from '../../../lib/platform/config/cursors.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { listAuditEventsContract } from '../../../lib/audit/contracts/audit.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { AuditLog } from '../../../lib/audit/domain/list-audit.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { listAuditEventsRoute } from '../../../lib/audit/routes.ts';
import { AuditStore } from '../../../lib/audit/store/audit-store.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const auditLog = new AuditLog(new AuditStore(requiredEnv(TABLES.audit.envVar)), new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(
  bindOperation(listAuditEventsRoute, listAuditEventsContract),
  chainDependencies,
  async ({ query, principal }) => ({
    status: 200,
    json: await auditLog.list(principal.organizationId, query),
  }),
);
