import { connect } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, expect, it } from 'vitest';
import { REFERENCE_PAGE_PATH } from '../../../lib/app/reference-page.ts';

// The local server's kept-alive connections (local/http-server.ts). A client busy for seconds
// between two requests (the e2e suites build a response validator per route on first use) sends
// its next request on the connection it kept; the server must not have closed it meanwhile.

const SERVER_MODULE = fileURLToPath(new URL('../../../local/http-server.ts', import.meta.url));
const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.terminate()));
});

/** The local server in a thread of its own, so it runs while this one is blocked; its port. */
async function serverThread(): Promise<number> {
  // An ES module (a data: URL), not an eval'd CommonJS script: tsx compiles what an ES module
  // imports, while a CommonJS script's import() leaves some files to Node's type stripping,
  // which refuses TypeScript's parameter properties.
  const source = `
    import { parentPort } from 'node:worker_threads';
    const { createLocalServer } = await import(${JSON.stringify(pathToFileURL(SERVER_MODULE).href)});
    const server = createLocalServer();
    server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`;
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`), { execArgv: ['--import', 'tsx'] });
  workers.push(worker);
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

/** Keeps this thread busy: no timer, no I/O of its own runs meanwhile. */
function blockFor(milliseconds: number): void {
  const until = Date.now() + milliseconds;
  while (Date.now() < until) {
    // busy
  }
}

it('answers the next request on a kept-alive connection after the client was busy for 8 s', { timeout: 60_000 }, async () => {
  // Prepare
  const port = await serverThread();
  const socket = connect(port, '127.0.0.1');
  let received = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  const statusLines = () => received.match(/^HTTP\/1\.1 \d{3}/gm)?.length ?? 0;
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  const request = `GET ${REFERENCE_PAGE_PATH} HTTP/1.1\r\nHost: localhost\r\n\r\n`;
  socket.write(request);
  await until(() => statusLines() >= 1 || closed);
  // Act
  // Longer than Node's default idle timeout, 5 s, and the second it adds before closing.
  blockFor(8_000);
  socket.write(request);
  await until(() => statusLines() >= 2 || closed);
  socket.destroy();
  // Assess
  expect(statusLines()).toBe(2);
});
