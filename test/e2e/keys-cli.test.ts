import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { SCOPES } from '../../lib/platform/auth/scopes.ts';
import { callApi, uniqueOrganization } from '../support/api.ts';
import { TEST_API_KEY_CACHE_SECONDS } from '../support/global-stack.ts';
import { expectProblem } from '../support/problem.ts';

/** The keys CLI as a user runs it: a separate process, against the running local server. */

const run = promisify(execFile);

async function keysCli(args: string[], stateDir = inject('stack').stateDir) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'local/keys-cli.ts', ...args], {
      env: { ...process.env, LOCAL_STATE_DIR: stateDir, NODE_NO_WARNINGS: '1' },
      timeout: 90_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('keys CLI', () => {
  it('creates a key that works, lists it, and revokes it', async () => {
    // Prepare
    const org = uniqueOrganization();
    // Act
    const created = await keysCli(['create', '--org', org, '--name', 'label printer', '--scopes', 'labels:read', '--json']);
    // Assess
    expect(created.code, created.stderr).toBe(0);
    const lines = created.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const key = JSON.parse(lines[0] ?? '');
    expect(Object.keys(key).sort()).toEqual(['expiresAt', 'id', 'key', 'name', 'organizationId', 'scopes']);
    expect(key).toMatchObject({ organizationId: org, name: 'label printer', scopes: ['labels:read'], expiresAt: null });
    expect(key.id).toMatch(/^key_/);
    expect((await callApi('/v1/barcodes?payload=1', { key: key.key })).status).toBe(200);

    const listed = JSON.parse((await keysCli(['list', '--org', org, '--json'])).stdout);
    expect(listed.data).toEqual([expect.objectContaining({ id: key.id, revokedAt: null })]);
    expect(JSON.stringify(listed)).not.toContain(key.key);

    const revoked = await keysCli(['revoke', key.id, '--json']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout).revokedAt).toEqual(expect.any(String));
    // The server trusts a looked-up key for TEST_API_KEY_CACHE_SECONDS: the revocation takes
    // effect within that period, not later.
    const revokedAt = Date.now();
    let refused = await callApi('/v1/barcodes?payload=1', { key: key.key });
    while (refused.status === 200 && Date.now() - revokedAt < TEST_API_KEY_CACHE_SECONDS * 1000 + 1000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      refused = await callApi('/v1/barcodes?payload=1', { key: key.key });
    }
    await expectProblem(refused, 401, 'customer-api.auth.unauthenticated');
  });

  it('creates a key with inventory:read that reads inventory and nothing else', async () => {
    // Act
    const created = await keysCli(['create', '--org', uniqueOrganization(), '--name', 'stock reader', '--scopes', 'inventory:read', '--json']);

    // Assess
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key.scopes).toEqual(['inventory:read']);
    expect((await callApi('/v1/items', { key: key.key })).status).toBe(200);
    await expectProblem(await callApi('/v1/boms', { key: key.key }), 403, 'customer-api.auth.insufficient-scope');
  });

  it('creates a key with exports:read and exports:write that exports and reads nothing else', async () => {
    // Act
    const created = await keysCli(['create', '--org', uniqueOrganization(), '--name', 'exporter', '--scopes', 'exports:read,exports:write', '--json']);

    // Assess
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key.scopes).toEqual(['exports:read', 'exports:write']);
    expect((await callApi('/v1/exports/kinds', { key: key.key })).status).toBe(200);
    await expectProblem(await callApi('/v1/items', { key: key.key }), 403, 'customer-api.auth.insufficient-scope');
  });

  it('honours --expires', async () => {
    const created = await keysCli(['create', '--org', uniqueOrganization(), '--name', 'old', '--scopes', 'all', '--expires', '2020-01-01T00:00:00Z', '--json']);
    const key = JSON.parse(created.stdout);
    expect(key.expiresAt).toBe('2020-01-01T00:00:00.000Z');
    expect(key.scopes).toEqual([...SCOPES]);
    expect(key.scopes).toContain('inventory:read');
    expect(key.scopes).toEqual(expect.arrayContaining(['exports:read', 'exports:write']));
    await expectProblem(await callApi('/v1/barcodes?payload=1', { key: key.key }), 401);
  });

  it.each([
    [['create', '--org', 'org_x', '--name', 'n', '--scopes', 'labels:write']],
    [['create', '--org', 'not-an-org', '--name', 'n', '--scopes', 'all']],
    [['create', '--org', 'org_x', '--name', 'n', '--scopes', 'all', '--expires', 'tomorrow']],
    [['create', '--org', 'org_x']],
    [['revoke', 'key_doesnotexist']],
    [['frobnicate']],
  ])('refuses %j with exit code 2 and a message', async (args) => {
    const result = await keysCli(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^keys: /);
  });

  it('works without a running server, keeping keys in the state directory', async () => {
    // Prepare
    const stateDir = mkdtempSync(join(tmpdir(), 'keys-cli-'));
    try {
      // Act
      const created = await keysCli(['create', '--org', 'org_solo', '--name', 'offline', '--scopes', 'all', '--json'], stateDir);
      const listed = await keysCli(['list', '--org', 'org_solo', '--json'], stateDir);
      // Assess
      expect(created.code, created.stderr).toBe(0);
      expect(JSON.parse(listed.stdout).data).toEqual([expect.objectContaining({ id: JSON.parse(created.stdout).id })]);
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
