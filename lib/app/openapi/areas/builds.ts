import type { BUILD_ROUTES } from '../../../builds/routes.ts';
import { buildSchema } from '../../../builds/contracts/builds.ts';
import { getBuildContract, submitBuildContract } from '../../../builds/contracts/operations.ts';
import type { OpenApiArea } from './types.ts';

/** The Builds area in the OpenAPI document. */
export const buildsOpenApi = {
  tag: {
    name: 'Builds',
    description:
      'Builds of a BOM of any size, run as jobs: every component reserved first, then consumed and the output produced, in as many transactions as needed, each step once.',
  },
  operations: {
    submitBuild: { contract: submitBuildContract, response: buildSchema },
    getBuild: { contract: getBuildContract, response: buildSchema },
  },
  problemCodes: {
    submitBuild: { 409: ['customer-api.builds.reference-taken', 'customer-api.inventory.item-archived', 'customer-api.inventory.location-archived'] },
    getBuild: { 404: ['customer-api.builds.not-found'] },
  },
} satisfies OpenApiArea<typeof BUILD_ROUTES>;
