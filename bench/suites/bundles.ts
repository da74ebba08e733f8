import { ON_DEMAND_MODULE_BUDGET_BYTES } from '../../infra/on-demand-modules.ts';
import { measureBundles } from '../bundle-sizes.ts';
import type { Measure, Suite } from './suite.ts';

/**
 * Bundle size of every Lambda as CDK deploys it (esbuild, minified, ESM), in KB of 1000 bytes,
 * against the budgets of docs/performance.md "Bundles"; a function's on-demand files (the barcode
 * encoders, infra/on-demand-modules.ts) each against their own bound. Deterministic: quick mode measures the same.
 */
export const BUNDLE_TARGET_KB = { api: 300, barcode: 250, worker: 450 } as const;

export const bundlesSuite: Suite = {
  name: 'bundles',
  async run(context) {
    const sizes = await measureBundles();
    const measures: Measure[] = [];
    for (const size of sizes) {
      if (size.role === 'fallback') continue;
      const heaviest = size.heaviest.map(([name, bytes]) => `${name} ${(bytes / 1000).toFixed(0)}`).join(', ');
      measures.push({
        name: `bundle ${size.functionId} (${size.kind})`,
        value: Math.round(size.bytes / 100) / 10,
        unit: 'KB',
        target: { comparison: '<=', value: BUNDLE_TARGET_KB[size.role] },
        note: heaviest,
      });
      for (const file of size.onDemand) {
        measures.push({
          name: `on demand ${size.functionId}: ${file.name}`,
          value: Math.round(file.bytes / 100) / 10,
          unit: 'KB',
          target: { comparison: '<=', value: ON_DEMAND_MODULE_BUDGET_BYTES / 1000 },
          note: 'loaded by the first request that needs it, on top of the entry',
        });
      }
    }
    context.log(`bundles: ${sizes.length} functions measured`);
    return measures;
  },
};
