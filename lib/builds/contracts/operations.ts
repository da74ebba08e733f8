import * as z from '../../platform/contracts/zod.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { idParam } from '../../platform/contracts/primitives.ts';
import { submitBuildBody } from './builds.ts';

/** The request contracts of the Builds routes (docs/boms.md "Builds"). */

export const submitBuildContract = defineOperation({ operationId: 'submitBuild', request: { body: submitBuildBody } });

export const getBuildContract = defineOperation({ operationId: 'getBuild', request: { path: /* @__PURE__ */ (() => z.strictObject({ id: idParam }))() } });
