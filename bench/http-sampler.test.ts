import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { uws } from '@chain-indexer/platform/http';
import { afterEach, describe, expect, it } from 'vitest';
import { closedLoop, type LoopSample } from './http-sampler.js';

const servers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of servers.splice(0)) await stop();
});

/** A node:http server on a free port; `handler` writes the answer its own way. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const s: Server = createServer(handler);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  servers.push(
    () =>
      new Promise<void>((r) => {
        s.closeAllConnections();
        s.close(() => r());
      }),
  );
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/base`;
}

/**
 * A raw TCP server: `answer` gets each request's first line (GET requests, no body) and writes the
 * answer's bytes itself (in pieces, late, or not at all).
 */
async function serveRaw(answer: (line: string, sock: Socket) => void): Promise<string> {
  const s = createNetServer((sock) => {
    let buf = '';
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      for (let i = buf.indexOf('\r\n\r\n'); i >= 0; i = buf.indexOf('\r\n\r\n')) {
        const req = buf.slice(0, i);
        buf = buf.slice(i + 4);
        answer(req, sock);
      }
    });
    sock.on('error', () => undefined);
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const open = new Set<Socket>();
  s.on('connection', (c) => {
    open.add(c);
    c.on('close', () => open.delete(c));
  });
  servers.push(
    () =>
      new Promise<void>((r) => {
        for (const c of open) c.destroy();
        s.close(() => r());
      }),
  );
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/base`;
}

async function collect(o: Omit<Parameters<typeof closedLoop>[0], 'onSample'>): Promise<LoopSample[]> {
  const out: LoopSample[] = [];
  await closedLoop({ ...o, onSample: (s) => out.push(s) });
  return out;
}

describe('closedLoop (the benches’ latency client)', () => {
  it('reads heads and bodies split across socket reads, keeps bodies only when asked', async () => {
    const big = Buffer.alloc(300_000, 'y'); // more than one read buffer
    const seen: string[] = [];
    const base = await serveRaw((req, sock) => {
      const [line, ...headers] = req.split('\r\n');
      const url = line.split(' ')[1];
      seen.push(`${line.split(' ')[0]} ${url} ${headers.find((h) => h.startsWith('x-api-key'))}`);
      const body = url.endsWith('/big') ? big : Buffer.from(`{"path":"${url}"}`);
      // The head goes out in pieces, then the body in two writes a tick apart.
      sock.write(`HTTP/1.1 200 OK\r\nConTent-LENGTH: ${body.length}\r\nx-a: 1`);
      setTimeout(() => {
        sock.write('\r\n\r');
        sock.write(`\n${body.subarray(0, 7).toString()}`);
        setTimeout(() => sock.write(body.subarray(7)), 2);
      }, 2);
    });
    const out = await collect({
      base,
      paths: ['/a', '/big'],
      connections: 1,
      amount: 6,
      headers: { 'x-api-key': 'k' },
      keepBody: (status, path) => status === 200 && path === 1,
    });
    expect(out.map((s) => [s.status, s.path])).toEqual([
      [200, 0],
      [200, 1],
      [200, 0],
      [200, 1],
      [200, 0],
      [200, 1],
    ]);
    expect(out.filter((s) => s.path === 0).every((s) => s.body === null)).toBe(true);
    for (const s of out.filter((x) => x.path === 1)) expect(s.body!.equals(big)).toBe(true);
    expect(out.every((s) => s.ms > 0)).toBe(true);
    expect(seen.slice(0, 2)).toEqual(['GET /base/a x-api-key: k', 'GET /base/big x-api-key: k']);
  });

  it('counts non-2xx answers and zero-length bodies, posts a body', async () => {
    const base = await serve((req, res) => {
      let got = '';
      req.on('data', (d) => {
        got += d;
      });
      req.on('end', () => {
        if (req.url!.endsWith('/missing')) {
          res.writeHead(404, { 'content-length': 2 }).end('{}');
          return;
        }
        if (req.url!.endsWith('/empty')) {
          res.writeHead(204).end();
          return;
        }
        res.writeHead(200, { 'content-length': Buffer.byteLength(got) }).end(got);
      });
    });
    const out = await collect({
      base,
      paths: ['/echo', '/missing', '/empty'],
      connections: 1,
      amount: 3,
      method: 'POST',
      body: '{"q":1}',
      keepBody: () => true,
    });
    expect(out.map((s) => s.status)).toEqual([200, 404, 204]);
    expect(out[0].body!.toString()).toBe('{"q":1}');
    expect(out[2].body!.length).toBe(0);
  });

  it('an answer without a length, a dropped connection or a late answer is a failure; the loop goes on', async () => {
    let n = 0;
    const base = await serveRaw((_req, sock) => {
      n++;
      if (n === 1) sock.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n');
      else if (n === 2)
        sock.destroy(); // no answer at all
      else if (n === 3)
        return; // an answer that never comes: the watchdog fails it
      else sock.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
    });
    const out = await collect({ base, paths: ['/x'], connections: 1, amount: 6, timeoutMs: 100 });
    expect(out.map((s) => s.status)).toEqual([0, 0, 0, 200, 200, 200]);
    expect(out[2].ms).toBeGreaterThanOrEqual(100);
  });

  it('runs several connections against a real uWS server until the duration ends', async () => {
    const app = uws.App().get('/*', (res) => {
      res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end('{"hello":"world"}');
    });
    const port = await new Promise<number>((r) =>
      app.listen('127.0.0.1', 0, (sock) => r(uws.us_socket_local_port(sock))),
    );
    servers.push(async () => {
      app.close();
    });
    const out = await collect({
      base: `http://127.0.0.1:${port}`,
      paths: ['/hello'],
      connections: 4,
      durationS: 0.3,
    });
    expect(out.length).toBeGreaterThan(20);
    expect(out.every((s) => s.status === 200 && s.body === null)).toBe(true);
  });
});
