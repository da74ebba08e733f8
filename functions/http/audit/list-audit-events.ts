import { chainDependencies } from '../../../lib/composition.ts';
import { cursorKeys } from '../../../lib/config/cursors.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { listAuditEventsContract } from '../../../lib/contracts/audit.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { AuditLog } from '../../../lib/domain/audit/list-audit.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { listAuditEventsRoute } from '../../../lib/routes/audit.ts';
import { AuditStore } from '../../../lib/store/audit-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const auditLog = new AuditLog(new AuditStore(requiredEnv(TABLES.audit.envVar)), new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(bindOperation(listAuditEventsRoute, listAuditEventsContract), chainDependencies, async ({ query, principal }) => ({
  status: 200,
  json: await auditLog.list(principal.organizationId, query),
}));
