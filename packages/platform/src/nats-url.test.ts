/** NATS URLs with credentials become servers plus the client's user/password or token options. */
import { describe, expect, it } from 'vitest';
import { natsConnectOptions } from './nats-url.js';

describe('NATS URL credentials', () => {
  it('takes user and password (percent-decoded) out of every URL of the list', () => {
    expect(natsConnectOptions('nats://writer:p%40ss@nats-1:4222, nats://writer:p%40ss@nats-2:4222')).toEqual({
      servers: ['nats://nats-1:4222', 'nats://nats-2:4222'],
      user: 'writer',
      pass: 'p@ss',
    });
  });

  it('a bare userinfo is a token; no userinfo, no credentials', () => {
    expect(natsConnectOptions('tls://s3cr3t@nats:4222')).toEqual({
      servers: ['tls://nats:4222'],
      token: 's3cr3t',
    });
    expect(natsConnectOptions('nats://127.0.0.1:4222')).toEqual({ servers: ['nats://127.0.0.1:4222'] });
  });

  it('refuses lists that mix credentials, and what is not a NATS URL', () => {
    expect(() => natsConnectOptions('nats://a:b@h1:4222,nats://h2:4222')).toThrow(/same credentials/);
    expect(() => natsConnectOptions('http://h:4222')).toThrow(/scheme/);
    expect(() => natsConnectOptions('')).toThrow(/no NATS URL/);
  });
});
