import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type FloodResult, flood, MiB, rssOf, trickle } from '../../../test/harness/flood.js';
import { readBody } from './body.js';
import {
  DEFAULT_MAX_CONNECTIONS,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
  TIMEOUT_CHECK_MS,
} from './http-limits.js';
import { send, type us_listen_socket } from './uws.js';
import { type NodeListenSocket, nodeHttpUws } from './uws-node.js';

const shim = nodeHttpUws();
let sock: us_listen_socket | null = null;
afterEach(() => {
  if (sock) shim.us_listen_socket_close(sock);
  sock = null;
});

function listen(app: ReturnType<typeof shim.App>): Promise<number> {
  return new Promise((resolve, reject) =>
    app.listen('127.0.0.1', 0, (s) => {
      if (!s) return reject(new Error('listen failed'));
      sock = s;
      resolve(shim.us_socket_local_port(s));
    }),
  );
}

function call(
  port: number,
  path: string,
  opts: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; text: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const r = request(
      { host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: opts.headers },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => {
          text += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    r.on('error', reject);
    r.end(opts.body);
  });
}

describe('node:http uWS stand-in', () => {
  it('routes like uWS: static before :param before *, method routes before any, params and query as uWS gives them', async () => {
    const app = shim.App();
    const seen: string[] = [];
    app.any('/*', (res, req) => {
      seen.push(`any ${req.getMethod()} ${req.getUrl()}`);
      res.writeStatus('404 Not Found').end('nf');
    });
    app.get('/a/:id/x', (res, req) => {
      seen.push(
        `param ${req.getParameter(0)} q=${req.getQuery()} k=${req.getQuery('k')} h=${req.getHeader('x-k')}`,
      );
      res.end('param');
    });
    app.get('/a/fixed/x', (res) => {
      res.end('static');
    });
    app.get('/assets/*', (res, req) => {
      res.end(`wild ${req.getUrl()}`);
    });
    app.get('/', (res) => {
      res.end('root');
    });
    const port = await listen(app);
    expect((await call(port, '/a/fixed/x')).text).toBe('static');
    expect((await call(port, '/')).text).toBe('root');
    expect((await call(port, '/a/7%20b/x?k=v%201&z=2', { headers: { 'x-k': 'K' } })).text).toBe('param');
    expect(seen).toContain('param 7%20b q=k=v%201&z=2 k=v 1 h=K');
    expect((await call(port, '/assets/js/app.js')).text).toBe('wild /assets/js/app.js');
    const nf = await call(port, '/nope', { method: 'POST' });
    expect(nf.status).toBe(404);
    expect(seen).toContain('any post /nope');
  });

  it('writes status, repeated headers and a large body through the adapter (tryEnd path), and reads a POST body', async () => {
    const app = shim.App();
    const big = 'x'.repeat(200_000);
    app.get('/big', (res) =>
      send(
        res,
        201,
        [
          ['set-cookie', 'a=1'],
          ['set-cookie', 'b=2'],
        ],
        big,
        { aborted: false },
      ),
    );
    app.post('/echo', (res) => {
      const state = { aborted: false };
      readBody(res, state, 1024, (m) => new Error(m)).then(
        (buf) => res.cork(() => res.end(`got ${buf.toString()}`)),
        (err: Error) => res.cork(() => res.writeStatus('413 Payload Too Large').end(err.message)),
      );
    });
    const port = await listen(app);
    const r = await call(port, '/big');
    expect(r.status).toBe(201);
    expect(r.text.length).toBe(200_000);
    expect(r.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect((await call(port, '/echo', { method: 'POST', body: '{"a":1}' })).text).toBe('got {"a":1}');
    expect((await call(port, '/echo', { method: 'POST', body: 'y'.repeat(5000) })).status).toBe(413);
  });

  it('streams with write/onWritable and calls onAborted when the client goes away', async () => {
    const app = shim.App();
    let aborted!: () => void;
    const abortedP = new Promise<void>((r) => {
      aborted = r;
    });
    let remote = '';
    app.get('/stream', (res) => {
      res.onAborted(() => aborted());
      remote = Buffer.from(res.getRemoteAddressAsText()).toString();
      res.writeStatus('200 OK').writeHeader('content-type', 'text/event-stream');
      let ok = true;
      let n = 0;
      while (ok && n < 10_000) ok = res.write(`data: ${'z'.repeat(1000)}\n\n`) && ++n > 0;
      expect(ok).toBe(false); // backpressure reached: node's buffer is over its high-water mark
      res.onWritable((offset) => {
        expect(offset).toBe(res.getWriteOffset());
        return true;
      });
    });
    const port = await listen(app);
    await new Promise<void>((resolve, reject) => {
      const r = request({ host: '127.0.0.1', port, path: '/stream' }, (res) => {
        expect(res.headers['content-type']).toBe('text/event-stream');
        res.once('data', () => {
          r.destroy();
          resolve();
        });
      });
      r.on('error', () => undefined);
      r.end();
      setTimeout(() => reject(new Error('no data')), 5000);
    });
    await abortedP;
    expect(remote).toBe('127.0.0.1');
  });
});

describe('node:http stand-in: a body nobody reads is never held (issue 38)', () => {
  /** Route classes of the services: each answers without reading the body, but the last one. */
  function classes(app: ReturnType<typeof shim.App>) {
    // 401 of a keyed route, answered in the handler's synchronous part.
    app.post('/keyed', (res) => {
      res.writeStatus('401 Unauthorized').end('{"error":"unauthorized"}');
    });
    // 401 after an await (the scanner's gate answers from a promise sometimes).
    app.post('/keyed-late', (res) => {
      const state = { aborted: false };
      res.onAborted(() => {
        state.aborted = true;
      });
      setTimeout(() => {
        if (!state.aborted) res.cork(() => res.writeStatus('401 Unauthorized').end('late'));
      }, 50);
    });
    app.get('/read', (res) => {
      res.end('{"ok":true}');
    });
    // A POST that reads its body, as POST /batch does: refused past its limit.
    app.post('/batch', (res) => {
      const state = { aborted: false };
      readBody(res, state, 256 * 1024, (m) => new Error(m)).then(
        () => res.cork(() => res.end('read')),
        (err: Error) => {
          if (!state.aborted) res.cork(() => res.writeStatus('413 Payload Too Large').end(err.message));
        },
      );
    });
    // A stream that never reads its request's body and never ends.
    app.get('/stream', (res) => {
      res.onAborted(() => undefined);
      res.writeStatus('200 OK').writeHeader('content-type', 'text/event-stream').write(': open\n\n');
    });
    app.any('/*', (res) => {
      res.writeStatus('404 Not Found').end('{"error":"not_found"}');
    });
  }

  it('a 400 MiB body written without waiting, to every class of route, grows RSS by under 64 MiB', async () => {
    const app = shim.App();
    classes(app);
    const port = await listen(app);
    const open: FloodResult[] = [];
    const rss0 = rssOf();
    const cases: Array<[string, string, RegExp]> = [
      ['POST', '/nope', /^HTTP\/1\.1 404/],
      ['POST', '/keyed', /^HTTP\/1\.1 401/],
      ['POST', '/keyed-late', /^HTTP\/1\.1 401/],
      ['GET', '/read', /^HTTP\/1\.1 200/],
      ['POST', '/batch', /^HTTP\/1\.1 413/],
      ['GET', '/stream', /^HTTP\/1\.1 200/],
    ];
    for (const [method, path] of cases)
      open.push(await flood({ port, method, path, total: 400 * MiB, rss: rssOf, stopGrowth: 128 * MiB }));
    // Held memory would still be held now: every client socket that is not closed is still open.
    const growth = Math.max(rssOf() - rss0, ...open.map((r) => r.peakGrowth));
    for (const r of open) r.socket.destroy();
    expect(growth).toBeLessThan(64 * MiB);
    cases.forEach(([method, path, status], i) => {
      const r = open[i];
      const what = `${method} ${path}`;
      expect(r.statusLine, what).toMatch(status);
      expect(r.written, `${what}: the server took the whole body`).toBeLessThan(400 * MiB);
      if (path === '/stream') {
        // Never answered in full: the server stops reading, the client cannot push more.
        expect(r.stalled, what).toBe(true);
      } else {
        // Answered, then the connection closed: the rest of the body is never read.
        expect(r.head, what).toContain('connection: close');
        expect(r.closed, what).toBe(true);
      }
    });
  }, 120_000);

  it('a small body answered at once keeps the connection; a large or chunked one is closed', async () => {
    const app = shim.App();
    classes(app);
    const port = await listen(app);
    const small = await call(port, '/keyed', { method: 'POST', body: '{"a":1}' });
    expect(small.status).toBe(401);
    expect(small.headers.connection).not.toBe('close');
    const read = await call(port, '/batch', { method: 'POST', body: 'x'.repeat(100_000) });
    expect(read.text).toBe('read');
    expect(read.headers.connection).not.toBe('close');
    const big = await flood({
      port,
      method: 'POST',
      path: '/keyed',
      total: 8 * MiB,
      rss: rssOf,
      stopGrowth: 1e12,
    });
    expect(big.head).toContain('connection: close');
    expect(big.closed).toBe(true);
  });

  it('a body read after an await still arrives whole (it waited on the wire, not in memory)', async () => {
    const app = shim.App();
    app.post('/later', (res) => {
      const state = { aborted: false };
      res.onAborted(() => {
        state.aborted = true;
      });
      setTimeout(() => {
        readBody(res, state, 1 << 20, (m) => new Error(m)).then((b) =>
          res.cork(() => res.end(`got ${b.length}`)),
        );
      }, 100);
    });
    const port = await listen(app);
    expect((await call(port, '/later', { method: 'POST', body: 'z'.repeat(500_000) })).text).toBe(
      'got 500000',
    );
  });
});

describe('node:http stand-in: slow clients and the connection cap (issue 38)', () => {
  it('listens with the bounds of http-limits.ts: headers 10 s, whole request 14 s (checked every 1 s), keep-alive 10 s, 4096 connections', async () => {
    const port = await listen(shim.App());
    expect(port).toBeGreaterThan(0);
    const { server } = sock as unknown as NodeListenSocket;
    expect(server.headersTimeout).toBe(HEADERS_TIMEOUT_MS);
    expect(server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
    expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
    expect(server.maxConnections).toBe(DEFAULT_MAX_CONNECTIONS);
    expect(HEADERS_TIMEOUT_MS + TIMEOUT_CHECK_MS).toBeLessThanOrEqual(15_000);
    expect(REQUEST_TIMEOUT_MS + TIMEOUT_CHECK_MS).toBeLessThanOrEqual(15_000);
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeLessThanOrEqual(15_000);
  });

  it('slow headers and a slow body are cut (408) at their limit, not minutes later', async () => {
    const fast = nodeHttpUws({ headersTimeoutMs: 1_000, requestTimeoutMs: 1_500, checkIntervalMs: 100 });
    const app = fast.App();
    app.post('/body', (res) => {
      const state = { aborted: false };
      readBody(res, state, 1 << 20, (m) => new Error(m)).then(
        () => res.cork(() => res.end('read')),
        () => undefined,
      );
    });
    const port = await new Promise<number>((resolve) =>
      app.listen('127.0.0.1', 0, (s) => {
        sock = s as us_listen_socket;
        resolve(fast.us_socket_local_port(s as us_listen_socket));
      }),
    );
    const [headers, body] = await Promise.all([
      trickle({ port, first: 'GET / HTTP/1.1\r\n', drip: 'x-a: b\r\n', everyMs: 200, giveUpMs: 10_000 }),
      trickle({
        port,
        first: 'POST /body HTTP/1.1\r\nhost: a\r\ncontent-length: 1000\r\n\r\n',
        drip: 'x',
        everyMs: 200,
        giveUpMs: 10_000,
      }),
    ]);
    expect(headers.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(headers.closedAfterMs).toBeLessThan(1_000 + 100 + 500);
    expect(body.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(body.closedAfterMs).toBeLessThan(1_500 + 100 + 500);
  });

  it('HTTP_MAX_CONNECTIONS caps the open connections of a listener; a malformed value is refused', async () => {
    process.env.HTTP_MAX_CONNECTIONS = '2';
    let port = 0;
    try {
      port = await listen(shim.App());
    } finally {
      delete process.env.HTTP_MAX_CONNECTIONS;
    }
    const sockets = [0, 1, 2].map(() => connect(port, '127.0.0.1'));
    const closed = await Promise.all(
      sockets.map(
        (s) =>
          new Promise<boolean>((resolve) => {
            s.on('error', () => undefined);
            s.on('close', () => resolve(true));
            setTimeout(() => resolve(false), 1_000);
          }),
      ),
    );
    for (const s of sockets) s.destroy();
    expect(closed.filter(Boolean)).toHaveLength(1);
    expect(closed[2]).toBe(true);
    process.env.HTTP_MAX_CONNECTIONS = 'lots';
    try {
      expect(() => shim.App().listen('127.0.0.1', 0, () => undefined)).toThrow(/HTTP_MAX_CONNECTIONS/);
    } finally {
      delete process.env.HTTP_MAX_CONNECTIONS;
    }
  });
});
