/** loadVerifiedAbis: the shipped abis/ folder, its provenance, and refusal of malformed files. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DecodeError } from './errors.js';
import { createLogDecoder, decodeLog } from './logs.js';
import { loadVerifiedAbis, NO_VERIFIED_ABIS } from './verified-abis.js';

const require = createRequire(import.meta.url);
const ABIS_DIR = fileURLToPath(new URL('../../../../abis', import.meta.url));

describe('loadVerifiedAbis', () => {
  it('loads the shipped folder, bound to the mainnet factory addresses', () => {
    const v = loadVerifiedAbis(ABIS_DIR);
    expect(v.entries.map((e) => [e.name, e.address])).toEqual([
      ['UniswapV2Factory', '0x5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f'],
      ['UniswapV3Factory', '0x1f98431c8ad98523631ae4a59f267346ea31f984'],
    ]);
    expect(v.entries.every((e) => e.events > 0 && e.functions > 0)).toBe(true);
  });

  it('shipped files equal the abi of the installed npm artifacts', () => {
    for (const [file, pkg] of [
      ['UniswapV2Factory.json', '@uniswap/v2-core/build/UniswapV2Factory.json'],
      [
        'UniswapV3Factory.json',
        '@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json',
      ],
    ]) {
      const ours = JSON.parse(readFileSync(join(ABIS_DIR, file), 'utf8')) as { abi: unknown };
      const theirs = JSON.parse(readFileSync(require.resolve(pkg), 'utf8')) as { abi: unknown };
      expect(ours.abi).toEqual(theirs.abi);
    }
  });

  it('built-ins win over verified ABIs, even at the address a verified ABI is bound to', () => {
    const v = loadVerifiedAbis(ABIS_DIR);
    const decode = createLogDecoder({ verifiedAbis: v });
    // FeeAmountEnabled is built in (uniswap_v3_factory): built-ins win even at the bound address
    const log = {
      address: '0x1f98431c8ad98523631ae4a59f267346ea31f984',
      topics: [
        '0xc66a3fdf07232cdd185febcc6579d408c241b47ae2f9907d84be655141eeaecc',
        `0x${'0'.repeat(60)}01f4`,
        `0x${'0'.repeat(62)}0a`,
      ],
      data: '0x',
    };
    expect(decodeLog(log)).toMatchObject({
      standard: 'uniswap_v3_factory',
      event: 'FeeAmountEnabled',
      args: { fee: '500', tickSpacing: '10' },
    });
    expect(decode(log)).toMatchObject({ standard: 'uniswap_v3_factory' });
  });

  it('missing folder → empty set; malformed files → DecodeError verified_abi_invalid', () => {
    expect(loadVerifiedAbis('/nonexistent/abis')).toBe(NO_VERIFIED_ABIS);
    const cases: [string, string][] = [
      ['bad.json', '{not json'],
      ['noname.json', JSON.stringify({ abi: [] })],
      ['noabi.json', JSON.stringify({ name: 'X' })],
      ['badaddr.json', JSON.stringify({ name: 'X', address: '0x12', abi: [] })],
      [
        'badtype.json',
        JSON.stringify({
          name: 'X',
          abi: [{ type: 'event', name: 'E', inputs: [{ name: 'a', type: 'uint7' }] }],
        }),
      ],
    ];
    for (const [name, body] of cases) {
      const dir = mkdtempSync(join(tmpdir(), 'abis-'));
      writeFileSync(join(dir, name), body);
      expect(() => loadVerifiedAbis(dir), name).toThrow(DecodeError);
    }
    const dup = mkdtempSync(join(tmpdir(), 'abis-'));
    writeFileSync(join(dup, 'a.json'), JSON.stringify({ name: 'Same', abi: [] }));
    writeFileSync(join(dup, 'b.json'), JSON.stringify({ name: 'Same', abi: [] }));
    expect(() => loadVerifiedAbis(dup)).toThrow(/duplicate name/);
  });
});
