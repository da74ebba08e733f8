import { ExportProcessor } from '../lib/exports/domain/process-export.ts';

/**
 * One export run in a process of its own (bench/suites/exports.ts), so its max RSS is the
 * worker's alone: the environment names the local stack; argv gives the organization and job.
 * Prints `{ seconds, maxRssMb }` as JSON.
 */
const [organizationId = '', jobId = ''] = process.argv.slice(2);
const { exportPorts } = await import('../functions/workers/process-export-jobs.ts');
const processor = new ExportProcessor({ ...exportPorts, continueLater: async () => undefined });
const started = performance.now();
// One long invocation: the bench measures throughput and memory, not hand-offs.
const outcome = await processor.process(organizationId, jobId, () => 3_600_000);
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ outcome, seconds, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
