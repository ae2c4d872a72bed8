import { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  MASK,
  redact,
  redactDeep,
  redactingLoggerOptions,
  redactKnown,
  rememberedSecretCount,
  rememberSecrets,
  secretsOfUrl,
} from './redact.js';

/** Real-shaped credentials (random, never issued): the shapes each provider hands out. */
const ALCHEMY = 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY';
const INFURA = '9aa3d95b3bc440fa88ea12eaa4456161';
const INFURA_SECRET = 'c1f8e0d2b4a6c8e0d2b4a6c8e0d2b4a6';
const QUICKNODE = '3a4f1c2b9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a';
const ANKR = 'f2e3d4c5b6a798897a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f';
const NATS_PASS = 's3cret-Pa55word';
const NATS_TOKEN = 'tok_9f8e7d6c5b4a39281706';

const cases: Array<[string, string, string[]]> = [
  [
    'alchemy https',
    `https://eth-mainnet.g.alchemy.com/v2/${ALCHEMY}`,
    ['https://eth-mainnet.g.alchemy.com/v2/***'],
  ],
  [
    'alchemy wss',
    `wss://base-mainnet.g.alchemy.com/v2/${ALCHEMY}`,
    ['wss://base-mainnet.g.alchemy.com/v2/***'],
  ],
  [
    'alchemy nft v3',
    `https://eth-mainnet.g.alchemy.com/nft/v3/${ALCHEMY}/getNFTsForOwner?owner=0xabc`,
    ['https://eth-mainnet.g.alchemy.com/nft/v3/***/***?owner=***'],
  ],
  ['infura https', `https://mainnet.infura.io/v3/${INFURA}`, ['https://mainnet.infura.io/v3/***']],
  ['infura wss', `wss://mainnet.infura.io/ws/v3/${INFURA}`, ['wss://mainnet.infura.io/ws/v3/***']],
  [
    'infura with project secret',
    `https://:${INFURA_SECRET}@arbitrum-mainnet.infura.io/v3/${INFURA}`,
    ['https://***@arbitrum-mainnet.infura.io/v3/***'],
  ],
  [
    'quicknode https',
    `https://wandering-frosty-pond.quiknode.pro/${QUICKNODE}/`,
    ['https://wandering-frosty-pond.quiknode.pro/***/'],
  ],
  [
    'quicknode wss with network',
    `wss://dawn-silent-lake.base-mainnet.quiknode.pro/${QUICKNODE}/`,
    ['wss://dawn-silent-lake.base-mainnet.quiknode.pro/***/'],
  ],
  ['ankr https', `https://rpc.ankr.com/eth/${ANKR}`, ['https://rpc.ankr.com/eth/***']],
  ['ankr wss', `wss://rpc.ankr.com/eth/ws/${ANKR}`, ['wss://rpc.ankr.com/eth/ws/***']],
  [
    'nats user and password, comma list',
    `nats://admin:${NATS_PASS}@nats-1:4222,nats://admin:${NATS_PASS}@nats-2:4222`,
    ['nats://***@nats-1:4222,nats://***@nats-2:4222'],
  ],
  ['nats token', `tls://${NATS_TOKEN}@nats.example:4222`, ['tls://***@nats.example:4222']],
  ['smtp', `smtps://mailer:${NATS_PASS}@smtp.example:465`, ['smtps://***@smtp.example:465']],
  [
    'query key of an unknown provider',
    'https://node.example/rpc?apikey=abcdef&network=eth',
    ['https://node.example/rpc?apikey=***&network=***'],
  ],
  [
    'path key of an unknown provider',
    `https://rpc.some-node.example/eth/${INFURA}`,
    ['https://rpc.some-node.example/eth/***'],
  ],
  [
    'uuid path key',
    'https://eth-mainnet.blastapi.io/0f3e2d1c-aaaa-4bbb-8ccc-123456789abc',
    ['https://eth-mainnet.blastapi.io/***'],
  ],
  ['loopback devnet stays readable', 'http://127.0.0.1:8545', ['http://127.0.0.1:8545']],
  ['derived ws of a devnet', 'ws://127.0.0.1:8545/', ['ws://127.0.0.1:8545/']],
];

describe('redact', () => {
  for (const [name, input, expected] of cases)
    it(`masks ${name}`, () => {
      const out = redact(input);
      expect(out).toBe(expected[0]);
      for (const secret of [ALCHEMY, INFURA, INFURA_SECRET, QUICKNODE, ANKR, NATS_PASS, NATS_TOKEN])
        expect(out).not.toContain(secret);
      expect(redact(out)).toBe(out);
    });

  it('masks URLs and secret pairs inside free text, and keeps the rest', () => {
    const text = `HTTP request failed.\nURL: https://eth-mainnet.g.alchemy.com/v2/${ALCHEMY}.\nRequest body: {"method":"eth_blockNumber"} token=${NATS_TOKEN} Authorization: Bearer ${ALCHEMY}`;
    const out = redact(text);
    expect(out).toContain('URL: https://eth-mainnet.g.alchemy.com/v2/***.');
    expect(out).toContain('token=***');
    expect(out).toContain('Bearer ***');
    expect(out).toContain('{"method":"eth_blockNumber"}');
    expect(out).not.toContain(ALCHEMY);
    expect(out).not.toContain(NATS_TOKEN);
  });

  it('leaves ordinary API details alone (hashes, paths, parameter hints)', () => {
    for (const t of [
      'no route GET /index/v1/devnet/nope',
      "the cursor's anchor block 12 (0x2c5f1b7a0e4b0f8f8f6a1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f) is no longer canonical",
      'filters (and base) make the walk examine subjects it does not return: pass allowScan=true',
    ])
      expect(redact(t)).toBe(t);
  });

  it('redacts every string of a log record, errors included', () => {
    const err = new Error(`fetch failed: wss://mainnet.infura.io/ws/v3/${INFURA}`);
    const out = JSON.stringify(redactDeep({ nested: { urls: [`nats://a:${NATS_PASS}@h:1`] }, err }));
    expect(out).not.toContain(INFURA);
    expect(out).not.toContain(NATS_PASS);
    expect(out).toContain(MASK);
  });

  it('a pino logger built with the options prints no secret, whatever is logged', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const log = pino({ ...redactingLoggerOptions() }, sink);
    log.info({ rpcUrl: `https://rpc.ankr.com/eth/${ANKR}` }, 'configuration');
    log.warn(`nats: connecting to nats://admin:${NATS_PASS}@nats-1:4222`);
    log.error({ err: new Error(`HTTP request failed. URL: https://x.quiknode.pro/${QUICKNODE}/`) }, 'failed');
    log.error(new Error(`https://eth-mainnet.g.alchemy.com/v2/${ALCHEMY}`));
    const all = lines.join('');
    expect(lines).toHaveLength(4);
    for (const secret of [ANKR, NATS_PASS, QUICKNODE, ALCHEMY]) expect(all).not.toContain(secret);
    expect(all).toContain('https://rpc.ankr.com/eth/***');
  });
});

describe('redact by value (the configuration’s secrets)', () => {
  it('secretsOfUrl names the secret parts of a configured URL, not where it points', () => {
    expect(
      secretsOfUrl(
        'https://ops:p%2Fss@node.example.com./eth/mainnet/k8Xq2Lm9;apikey=zz99QQ?network=mainnet&key=abcd1234#fragment',
      ).sort(),
    ).toEqual(['abcd1234', 'fragment', 'k8Xq2Lm9', 'ops:p%2Fss', 'p%2Fss', 'zz99QQ'].sort());
    // A known provider: its prefix is kept, what follows it is the key whatever its shape.
    expect(secretsOfUrl('https://eth-mainnet.g.alchemy.com/v2/abcdefgh')).toEqual(['abcdefgh']);
    expect(secretsOfUrl('wss://mainnet.infura.io/ws/v3/1234567890')).toEqual(['1234567890']);
    // A token, a comma list, no scheme.
    expect(secretsOfUrl('nats://t0kenValue@n1:4222,nats://t0kenValue@n2:4222')).toEqual([
      't0kenValue',
      't0kenValue',
    ]);
    expect(secretsOfUrl('admin:hunter22@nats-1:4222')).toEqual(['admin:hunter22', 'hunter22']);
    // Nothing secret in a devnet URL or a chain id.
    expect(secretsOfUrl('http://127.0.0.1:8545')).toEqual([]);
    expect(secretsOfUrl('https://rpc.example/v1/8453')).toEqual([]);
    expect(secretsOfUrl(null)).toEqual([]);
  });

  it('a remembered secret is replaced wherever it appears, in each of its forms; short ones as whole words only', () => {
    const pw = 'Pa/ss "w0rd';
    rememberSecrets([pw, 'shortK3y', 'AbCdEfGhIjKlMnOpQrStUv']);
    expect(rememberedSecretCount()).toBeGreaterThanOrEqual(3);
    for (const text of [
      `login failed for ${pw} at host`,
      `url smtp://u:${encodeURIComponent(pw)}@mail:25`,
      `{"password":${JSON.stringify(pw)}}`,
      'x-api-key: shortK3y',
      '/v1/AbCdEfGhIjKlMnOpQrStUv/',
      'glued:xxAbCdEfGhIjKlMnOpQrStUvxx',
    ]) {
      const out = redactKnown(text);
      for (const s of [pw, encodeURIComponent(pw), 'shortK3y', 'AbCdEfGhIjKlMnOpQrStUv'])
        expect(out, text).not.toContain(s);
      expect(redact(text), text).toContain(MASK);
    }
    // A short secret inside a longer word is that word, not the secret.
    expect(redactKnown('shortK3yz')).toBe('shortK3yz');
    expect(redactKnown('nothing here')).toBe('nothing here');
  });

  it('worker threads started afterwards inherit the remembered secrets', async () => {
    rememberSecrets(['inherited-Secret-42']);
    const w = new Worker(
      `const { getEnvironmentData, parentPort } = require('node:worker_threads');
       parentPort.postMessage(getEnvironmentData('chain-indexer:redact:secrets'));`,
      { eval: true },
    );
    const list = await new Promise<string[]>((resolve) => w.once('message', resolve));
    await w.terminate();
    expect(list).toContain('inherited-Secret-42');
  });
});

describe('redact by pattern (the backstop for secrets nobody configured)', () => {
  const cases: Array<[string, string, string]> = [
    [
      'a provider host with a trailing dot',
      'https://eth-mainnet.g.alchemy.com./v2/abcdefghijklmnop',
      'abcdefghijklmnop',
    ],
    ['a ;apikey= path parameter', 'https://node.example.com/rpc;apikey=AbCd1234', 'AbCd1234'],
    [
      'a letters-only key of both cases',
      'https://rpc.example.org/AbCdEfGhIjKlMnOpQrSt',
      'AbCdEfGhIjKlMnOpQrSt',
    ],
    ['a digits-only key', 'https://rpc.example.org/eth/12345678901234567890', '12345678901234567890'],
    ['a password with /', 'nats://admin:pa/ss99@nats-1:4222', 'pa/ss99'],
    ['user:pass@ without a scheme', 'connecting to admin:s3cr3tPw@nats-1:4222 failed', 's3cr3tPw'],
    ['"apiKey":"…"', 'body {"apiKey":"AbCd1234","x":1}', 'AbCd1234'],
    ['password: …', 'auth failed (password: hunter22)', 'hunter22'],
    ['x-api-key: …', 'header x-api-key: k3yK3yK3y', 'k3yK3yK3y'],
    ['token=… in a query-less text', 'got token=tok_123456 back', 'tok_123456'],
  ];
  for (const [name, text, secret] of cases)
    it(`masks ${name}`, () => {
      const out = redact(text);
      expect(out).not.toContain(secret);
      expect(out).toContain(MASK);
      expect(redact(out)).toBe(out);
    });

  it('keeps what is no secret: e-mail addresses, times, printed placeholders, hashes', () => {
    for (const t of [
      'mail to user@example.com at 12:30',
      'mailto:someone@example.com',
      '{"cursorSecret":"(set)","devApiKey":"(masked, 24 chars)"}',
      'block 0x2c5f1b7a0e4b0f8f8f6a1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f',
    ])
      expect(redact(t)).toBe(t);
  });
});
