/**
 * The door of the builds area: what another area's domain, contracts and routes may import of
 * it, nothing more (docs/architecture.md "Areas and their doors").
 */
export { BuildReferenceTakenError, queuedBuild } from './domain/build.ts';
export type { Build, BuildFailure } from './domain/build.ts';
export type { BuildPorts } from './domain/ports.ts';
export { BuildRunner } from './domain/runner.ts';
export type { StepHook } from './domain/runner.ts';
export { checkBuild, decideBuild, shortLinesMessage } from './domain/stock-steps.ts';
export type { BuildRow } from './domain/stock-steps.ts';
