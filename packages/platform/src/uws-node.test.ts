import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { readBody } from './body.js';
import { send, type us_listen_socket } from './uws.js';
import { nodeHttpUws } from './uws-node.js';

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
