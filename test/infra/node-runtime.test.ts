import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LAMBDA_NODE_MAJOR, LAMBDA_RUNTIME_NAME } from '../../lib/platform/config/runtime.ts';

/**
 * Tests and the local runtime run on the Node major that Lambda runs (lib/platform/config/runtime.ts).
 * The setup installs it from the npm registry as the `node` devDependency, whose binary
 * `npm run` / `npm exec` put first on PATH.
 */

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

const majorOf = (version: string): number => Number(/^v?(\d+)\./.exec(version)?.[1]);

describe('Node runtime', () => {
  it("runs the tests on the Lambda runtime's Node major", () => {
    // Assess
    expect(LAMBDA_RUNTIME_NAME).toBe(`nodejs${LAMBDA_NODE_MAJOR}.x`);
    expect(majorOf(process.version), `tests run on ${process.execPath} (${process.version})`).toBe(LAMBDA_NODE_MAJOR);
  });

  it('pins the node devDependency and declares engines for that same major', () => {
    // Assess
    expect(majorOf(packageJson.devDependencies.node ?? '')).toBe(LAMBDA_NODE_MAJOR);
    expect(packageJson.engines.node).toBe(`${LAMBDA_NODE_MAJOR}.x`);
    expect(majorOf(packageJson.devDependencies['@types/node'] ?? '')).toBe(LAMBDA_NODE_MAJOR);
  });
});
