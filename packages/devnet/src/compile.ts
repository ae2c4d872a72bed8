/**
 * Compiles the project's test contracts (`packages/devnet/src/contracts/*.sol`) with solc-js, caching
 * the output in `<stateDir>/solc-cache-<sha256>.json` keyed by the hash of every source and
 * the compiler version, so restarts skip the compile (solc-js takes several seconds).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}
export type CompiledContracts = Record<string, CompiledContract>;

/** Locates the `.sol` sources both from `packages/devnet/src` (vitest) and from `packages/devnet/dist` (built). */
export function contractsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, 'contracts'), resolve(here, '../src/contracts')];
  for (const c of candidates) if (existsSync(c)) return c;
  throw new Error(`devnet: contract sources not found (looked in ${candidates.join(', ')})`);
}

export function compileContracts(stateDir: string, log: (m: string) => void): CompiledContracts {
  const dir = contractsDir();
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.sol'))
    .sort();
  const sources: Record<string, { content: string }> = {};
  const h = createHash('sha256');
  for (const f of files) {
    const content = readFileSync(join(dir, f), 'utf8');
    sources[f] = { content };
    h.update(f).update('\0').update(content).update('\0');
  }
  const require = createRequire(import.meta.url);
  const solc = require('solc') as { version(): string; compile(input: string, opts?: unknown): string };
  h.update(solc.version());
  const key = h.digest('hex').slice(0, 16);
  mkdirSync(stateDir, { recursive: true });
  const cacheFile = join(stateDir, `solc-cache-${key}.json`);
  if (existsSync(cacheFile)) {
    return JSON.parse(readFileSync(cacheFile, 'utf8')) as CompiledContracts;
  }
  const t0 = Date.now();
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const out = JSON.parse(
    solc.compile(JSON.stringify(input), {
      import: (p: string) => {
        const file = join(dir, p.replace(/^\.\//, ''));
        return existsSync(file) ? { contents: readFileSync(file, 'utf8') } : { error: `not found: ${p}` };
      },
    }),
  ) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`devnet: solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }
  const result: CompiledContracts = {};
  for (const file of Object.keys(out.contracts)) {
    for (const [name, c] of Object.entries(out.contracts[file])) {
      if (c.evm.bytecode.object.length === 0) continue; // interfaces / abstract
      result[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
    }
  }
  writeFileSync(cacheFile, JSON.stringify(result));
  log(`devnet: compiled ${files.length} Solidity files with solc ${solc.version()} in ${Date.now() - t0} ms`);
  return result;
}
