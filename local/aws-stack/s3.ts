import { createCipheriv } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import S3rver from 's3rver';

/**
 * s3rver on 127.0.0.1 with the files bucket. Clients must use path-style addressing
 * (`forcePathStyle: true`): virtual-hosted names like `<bucket>.127.0.0.1` do not resolve.
 * s3rver checks SigV4 signatures (key pair S3RVER/S3RVER) and presigned URL expiry.
 */
export interface LocalS3 {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

export async function startS3(options: { stateDir: string; inMemory: boolean; port: number; bucket: string; log: (line: string) => void }): Promise<LocalS3> {
  const directory = options.inMemory ? await throwawayDirectory(options.stateDir) : join(options.stateDir, 's3');
  await mkdir(directory, { recursive: true });
  const server = new S3rver({
    address: '127.0.0.1',
    port: options.port,
    directory,
    silent: true,
    configureBuckets: [{ name: options.bucket }],
  });
  let address;
  try {
    address = await server.run();
  } catch (error) {
    if (options.inMemory) await rm(directory, { recursive: true, force: true });
    throw error;
  }
  if (!desAvailable()) {
    options.log(
      's3rver: DES is unavailable under OpenSSL 3, so a truncated ListObjectsV2 (continuation token) fails; ' +
        'run node with --openssl-legacy-provider (e.g. NODE_OPTIONS=--openssl-legacy-provider) if you page object lists',
    );
  }
  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    port: address.port,
    stop: () =>
      (stopping ??= (async () => {
        await server.close();
        if (options.inMemory) await rm(directory, { recursive: true, force: true });
      })()),
  };
}

/** s3rver encrypts ListObjectsV2 continuation tokens with DES, a legacy-provider cipher in OpenSSL 3. */
export function desAvailable(): boolean {
  try {
    createCipheriv('des', Buffer.alloc(8), Buffer.alloc(8));
    return true;
  } catch {
    return false;
  }
}

const THROWAWAY_PREFIX = 's3-in-memory-';

/**
 * In-memory mode keeps s3rver's files in `<stateDir>/s3-in-memory-<pid>-XXXXXX`, removed by
 * stop(). Directories left by a process that died without stopping are removed on the next start.
 */
async function throwawayDirectory(stateDir: string): Promise<string> {
  for (const name of await readdir(stateDir).catch(() => [] as string[])) {
    const pid = Number(/^s3-in-memory-(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid)) {
      await rm(join(stateDir, name), { recursive: true, force: true });
    }
  }
  return mkdtemp(join(stateDir, `${THROWAWAY_PREFIX}${process.pid}-`));
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
