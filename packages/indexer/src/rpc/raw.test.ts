/**
 * The raw JSON-RPC caller against a real HTTP server on loopback (scripted answers): calls of one
 * turn share a batch request, each result comes back as the server's own bytes beside its value,
 * node errors keep their code, and failures are retried or not as the plain caller does.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RpcError } from './client.js';
import { createRawRpc } from './raw.js';

type Req = { id: number; method: string; params: unknown[] };
let server: Server | null = null;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** A server answering each POST with `answer(requests, headers)`: [status, body text]. */
async function serve(answer: (reqs: Req[], req: IncomingMessage) => [number, string]): Promise<string> {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const [status, text] = answer(JSON.parse(body), req);
      res.writeHead(status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/`;
}

describe('the raw JSON-RPC caller', () => {
  it('sends the calls of one turn as one batch and answers each result as the bytes the server sent', async () => {
    const requests: Req[][] = [];
    // Spacing and key order a parser would not reproduce; answers out of order.
    const block = '{ "number" :"0x1",  "transactions":[ {"hash":"0xaa" , "value":"0x0"} ],"z":null }';
    const url = await serve((reqs) => {
      requests.push(reqs);
      const out = reqs.map((r) =>
        r.method === 'eth_getBlockByNumber'
          ? `{"jsonrpc":"2.0","id":${r.id},"result": ${block} }`
          : `{"id":${r.id},"jsonrpc":"2.0","result":[]}`,
      );
      return [200, `[${out.reverse().join(' ,\n')}]`];
    });
    const rpc = createRawRpc({ url });
    const [b, r] = await Promise.all([
      rpc.callRaw('eth_getBlockByNumber', ['0x1', true]),
      rpc.callRaw('eth_getBlockReceipts', ['0x1']),
    ]);
    expect(requests).toHaveLength(1);
    expect(requests[0].map((x) => x.method)).toEqual(['eth_getBlockByNumber', 'eth_getBlockReceipts']);
    expect(b.text).toBe(block);
    expect(b.value).toEqual(JSON.parse(block));
    expect(r).toEqual({ value: [], text: '[]' });
  });

  it("keeps a node error's code and does not retry what cannot succeed", async () => {
    let posts = 0;
    const url = await serve((reqs) => {
      posts++;
      return [
        200,
        JSON.stringify(
          reqs.map((r) => ({ jsonrpc: '2.0', id: r.id, error: { code: -32601, message: 'no such method' } })),
        ),
      ];
    });
    const err = await createRawRpc({ url, baseDelayMs: 1 })
      .callRaw('eth_getBlockReceipts', ['0x1'])
      .catch((e) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect(err.code).toBe(-32601);
    expect(err.retryable).toBe(false);
    expect(posts).toBe(1);
  });

  it('retries a busy node (HTTP 503, a rate-limit code, a truncated body) and then succeeds', async () => {
    const answers: Array<(r: Req[]) => [number, string]> = [
      () => [503, 'busy'],
      (r) => [
        200,
        JSON.stringify(
          r.map((x) => ({ jsonrpc: '2.0', id: x.id, error: { code: -32005, message: 'limit' } })),
        ),
      ],
      () => [200, '[{"jsonrpc":"2.0","id":'],
      (r) => [200, JSON.stringify(r.map((x) => ({ jsonrpc: '2.0', id: x.id, result: '0x10' })))],
    ];
    let n = 0;
    const url = await serve((reqs) => answers[n++](reqs));
    const retries: string[] = [];
    const got = await createRawRpc({ url, baseDelayMs: 1, onRetry: (m) => retries.push(m) }).callRaw(
      'eth_blockNumber',
    );
    expect(got).toEqual({ value: '0x10', text: '"0x10"' });
    expect(retries).toHaveLength(3);
  });

  it('gives up after its attempts, and fails every call of a batch the node refused as a whole', async () => {
    const url = await serve(() => [
      200,
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}',
    ]);
    const rpc = createRawRpc({ url, baseDelayMs: 1 });
    const errs = await Promise.all([rpc.callRaw('a').catch((e) => e), rpc.callRaw('b').catch((e) => e)]);
    for (const e of errs) {
      expect(e).toBeInstanceOf(RpcError);
      expect(e.message).toMatch(/batch too large/);
    }
    const down = await serve(() => [500, 'down']);
    const e = await createRawRpc({ url: down, baseDelayMs: 1, maxAttempts: 2 })
      .callRaw('x')
      .catch((x) => x);
    expect(e.retryable).toBe(true);
    expect(e.message).toMatch(/HTTP 500/);
  });

  it('sends credentials of the URL as a Basic header, never in the request line', async () => {
    let auth: string | undefined;
    let path: string | undefined;
    const url = await serve((reqs, req) => {
      auth = req.headers.authorization;
      path = req.url;
      return [200, JSON.stringify(reqs.map((x) => ({ jsonrpc: '2.0', id: x.id, result: null })))];
    });
    const withCreds = url.replace('http://', 'http://us%40er:p%3Ass@');
    await createRawRpc({ url: `${withCreds}rpc` }).callRaw('eth_chainId');
    expect(auth).toBe(`Basic ${Buffer.from('us@er:p:ss').toString('base64')}`);
    expect(path).toBe('/rpc');
  });
});
