/**
 * Configuration rules of SECURITY.md: no all-scope key is generated outside the embedded devnet
 * (a real chain needs KEYS_FILE or an explicit DEV_API_KEY), CURSOR_SECRET is hex of ≥ 32 bytes
 * and required of writers and replicas, and the printed config shows no secret.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, printable } from './index.js';

const gen = () => 'dev_generated_key_0123456789';
const ALCHEMY = 'https://eth-mainnet.g.alchemy.com/v2/aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY';

describe('config: keys', () => {
  it('refuses a real chain with neither KEYS_FILE nor DEV_API_KEY', () => {
    expect(() => loadConfig({ RPC_URL: 'http://127.0.0.1:8545', CHAIN: 'eth' }, gen)).toThrow(/KEYS_FILE/);
    expect(() => loadConfig({ ROLE: 'replica', CHAIN: 'eth', NATS_URL: 'nats://h:4222' }, gen)).toThrow(
      /KEYS_FILE/,
    );
  });

  it('never generates an all-scope key outside the embedded devnet', () => {
    const withFile = loadConfig({ RPC_URL: 'http://n:8545', CHAIN: 'eth', KEYS_FILE: '/k.json' }, gen);
    expect(withFile.devApiKey).toBeNull();
    expect(withFile.devApiKeyGenerated).toBe(false);
    const explicit = loadConfig({ RPC_URL: 'http://n:8545', CHAIN: 'eth', DEV_API_KEY: 'mine' }, gen);
    expect(explicit.devApiKey).toBe('mine');
    expect(explicit.devApiKeyGenerated).toBe(false);
    const devnet = loadConfig({}, gen);
    expect(devnet.devApiKey).toBe(gen());
    expect(devnet.devApiKeyGenerated).toBe(true);
  });
});

describe('config: cursor secret', () => {
  const base = { RPC_URL: 'http://n:8545', CHAIN: 'eth', DEV_API_KEY: 'k' };
  it('must be hex of at least 32 bytes', () => {
    for (const bad of ['changeme', 'ab'.repeat(31), `${'ab'.repeat(32)}a`, `${'zz'.repeat(32)}`])
      expect(() => loadConfig({ ...base, CURSOR_SECRET: bad }, gen), bad).toThrow(/CURSOR_SECRET/);
    expect(loadConfig({ ...base, CURSOR_SECRET: 'Ab'.repeat(32) }, gen).cursorSecret).toBe('Ab'.repeat(32));
  });

  it('is required of writers and replicas (they share it from config, never over NATS)', () => {
    const nats = { NATS_URL: 'nats://h:4222' };
    expect(() => loadConfig({ ...base, ...nats, ROLE: 'writer' }, gen)).toThrow(/CURSOR_SECRET/);
    expect(() => loadConfig({ CHAIN: 'eth', DEV_API_KEY: 'k', ...nats, ROLE: 'replica' }, gen)).toThrow(
      /CURSOR_SECRET/,
    );
    expect(loadConfig({ ...base, ...nats, ROLE: 'writer', CURSOR_SECRET: 'ab'.repeat(32) }, gen).role).toBe(
      'writer',
    );
  });
});

describe('config: printed at boot', () => {
  it('shows no node key, NATS credential, dev key or cursor secret', () => {
    const c = loadConfig(
      {
        RPC_URL: ALCHEMY,
        WS_URL: 'wss://mainnet.infura.io/ws/v3/9aa3d95b3bc440fa88ea12eaa4456161',
        CHAIN: 'eth',
        DEV_API_KEY: 'super-secret-dev-key',
        ROLE: 'writer',
        NATS_URL: 'nats://writer:s3cret-Pa55@nats-1:4222,nats://writer:s3cret-Pa55@nats-2:4222',
        CURSOR_SECRET: 'ef'.repeat(32),
      },
      gen,
    );
    const text = JSON.stringify(printable(c));
    for (const secret of [
      'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY',
      '9aa3d95b3bc440fa88ea12eaa4456161',
      's3cret-Pa55',
      'super-secret-dev-key',
      'ef'.repeat(32),
    ])
      expect(text).not.toContain(secret);
    expect(text).toContain('https://eth-mainnet.g.alchemy.com/v2/***');
    expect(text).toContain('nats://***@nats-1:4222,nats://***@nats-2:4222');
  });
});

describe('config: proxies', () => {
  const base = { RPC_URL: 'http://n:8545', CHAIN: 'eth', DEV_API_KEY: 'k' };
  it('TRUSTED_PROXY_HEADER is x-forwarded-for by default, or forwarded; anything else stops the start', () => {
    expect(loadConfig(base, gen).trustedProxyHeader).toBe('x-forwarded-for');
    expect(loadConfig({ ...base, TRUSTED_PROXY_HEADER: 'forwarded' }, gen).trustedProxyHeader).toBe(
      'forwarded',
    );
    expect(() => loadConfig({ ...base, TRUSTED_PROXY_HEADER: 'x-real-ip' }, gen)).toThrow(
      /TRUSTED_PROXY_HEADER/,
    );
    expect(
      printable(loadConfig({ ...base, TRUSTED_PROXY_HEADER: 'Forwarded' }, gen)).trustedProxyHeader,
    ).toBe('forwarded');
  });

  it('TRUSTED_PROXIES whose ranges together cover every address stop the start', () => {
    expect(() => loadConfig({ ...base, TRUSTED_PROXIES: '0.0.0.0/1,128.0.0.0/1' }, gen)).toThrow(
      /TRUSTED_PROXIES: .* together cover every IPv4 address/,
    );
  });
});

describe('config: HTTP bounds', () => {
  const base = { RPC_URL: 'http://n:8545', CHAIN: 'eth', DEV_API_KEY: 'k' };
  it('HTTP_MAX_CONNECTIONS is 4096 by default, an integer from 1 to 1,000,000 otherwise', () => {
    expect(loadConfig(base, gen).httpMaxConnections).toBe(4096);
    expect(loadConfig({ ...base, HTTP_MAX_CONNECTIONS: '200' }, gen).httpMaxConnections).toBe(200);
    for (const bad of ['0', 'many', '-1', '2000000'])
      expect(() => loadConfig({ ...base, HTTP_MAX_CONNECTIONS: bad }, gen), bad).toThrow(
        /HTTP_MAX_CONNECTIONS/,
      );
  });
});

describe('config: HISTORY_RETENTION', () => {
  const base = { RPC_URL: 'http://n:8545', CHAIN: 'eth', DEV_API_KEY: 'k' };
  it('is all (null) by default, on the embedded devnet too, or a number of blocks ≥ 1', () => {
    expect(loadConfig(base, gen).chains[0].historyRetention).toBeNull();
    expect(loadConfig({}, gen).chains[0].historyRetention).toBeNull();
    expect(loadConfig({ ...base, HISTORY_RETENTION: 'all' }, gen).chains[0].historyRetention).toBeNull();
    expect(loadConfig({ ...base, HISTORY_RETENTION: '5000' }, gen).chains[0].historyRetention).toBe(5000);
    for (const bad of ['-3', '1e3', 'ALL', 'OFF', '12.5', 'forever', '00'])
      expect(() => loadConfig({ ...base, HISTORY_RETENTION: bad }, gen), bad).toThrow(/HISTORY_RETENTION/);
  });
  it("off (or 0) is the chain's unfinalised window: as-of reads inside it only", () => {
    for (const off of ['off', '0'])
      expect(
        loadConfig({ ...base, HISTORY_RETENTION: off, UNFINALISED_WINDOW: '24' }, gen).chains[0]
          .historyRetention,
        off,
      ).toBe(24);
    expect(loadConfig({ HISTORY_RETENTION: 'off' }, gen).chains[0].historyRetention).toBe(128);
  });
});
