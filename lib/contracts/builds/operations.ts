import * as z from '../zod.ts';
import { defineOperation } from '../operation.ts';
import { idParam } from '../primitives.ts';
import { submitBuildBody } from './builds.ts';

/** The request contracts of the Builds routes (docs/boms.md "Builds"). */

export const submitBuildContract = defineOperation({ operationId: 'submitBuild', request: { body: submitBuildBody } });

export const getBuildContract = defineOperation({ operationId: 'getBuild', request: { path: /* @__PURE__ */ (() => z.strictObject({ id: idParam }))() } });
