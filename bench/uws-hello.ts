/**
 * The uWS ceiling: a bare uWebSockets.js hello-world (native binary, same package as the service),
 * run in its own process so it does not share an event loop with autocannon.
 *   node dist/bench/uws-hello.js   → prints `uws-hello listening <port> native=<bool>`
 * Answers every GET with a small JSON body and content-type, like the service's point reads.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { stopChild, track } from './lib.js';

async function main(): Promise<void> {
  const { uws, uwsIsNative } = await import('@chain-indexer/platform/http');
  const native = uwsIsNative();
  const body = '{"hello":"world"}';
  uws
    .App()
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
