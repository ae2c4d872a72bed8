/**
 * The uWS ceiling: a bare uWebSockets.js hello-world (native binary, same package as the service),
 * run in its own process so it does not share an event loop with autocannon.
 *   node dist/bench/uws-hello.js   → prints `uws-hello listening <port> native=<bool>`
 * Answers every GET with a small JSON body and content-type, like the service's point reads, and
 * `GET /bytes/{n}` with a JSON body of exactly n bytes (64 ≤ n ≤ 4 MiB; built once per size) — the
 * bare server's figure for an answer as large as a route's (bench/body-size.ts).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { stopChild, track } from './lib.js';

async function main(): Promise<void> {
  const { uws, uwsIsNative } = await import('@chain-indexer/platform/http');
  const native = uwsIsNative();
  const body = '{"hello":"world"}';
  const sized = new Map<number, Buffer>();
  /** A JSON string value padded to exactly `n` bytes: `{"data":"xxx…"}`. */
  const bodyOf = (n: number): Buffer => {
    let b = sized.get(n);
    if (!b) sized.set(n, (b = Buffer.from(`{"data":"${'x'.repeat(n - 11)}"}`)));
    return b;
  };
  uws
    .App()
    .get('/bytes/:n', (res, req) => {
      const n = Number(req.getParameter(0));
      res.writeStatus(n >= 64 && n <= 4 << 20 ? '200 OK' : '400 Bad Request');
      res.writeHeader('content-type', 'application/json');
      res.end(n >= 64 && n <= 4 << 20 ? bodyOf(n) : body);
    })
    .get('/*', (res) => {
      res.writeStatus('200 OK');
      res.writeHeader('content-type', 'application/json');
      res.end(body);
    })
    .listen('127.0.0.1', 0, (sock) => {
      if (!sock) {
        process.stderr.write('uws-hello: listen failed\n');
        process.exit(1);
      }
      process.stdout.write(`uws-hello listening ${uws.us_socket_local_port(sock)} native=${native}\n`);
    });
}

export async function startUwsHello(): Promise<{ url: string; native: boolean; stop(): Promise<void> }> {
  const c = track(
    spawn(process.execPath, [fileURLToPath(import.meta.url)], { stdio: ['ignore', 'pipe', 'inherit'] }),
  );
  const { port, native } = await new Promise<{ port: number; native: boolean }>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('uws-hello did not start')), 20_000);
    c.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /uws-hello listening (\d+) native=(true|false)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ port: Number(m[1]), native: m[2] === 'true' });
      }
    });
    c.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`uws-hello exited with ${code}`));
    });
  });
  return { url: `http://127.0.0.1:${port}`, native, stop: () => stopChild(c, 2000) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
