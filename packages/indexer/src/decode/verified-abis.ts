/**
 * Verified ABIs: a folder of `*.json` files, each `{ "name": string, "address"?: "0x…", "abi": [...] }`
 * (format in `abis/README.md`), compiled at start-up into topic0 / selector maps that both
 * decoders consult AFTER their built-in tables. Decoded results carry the source
 * `verified_abi:<name>`.
 *
 * Lookup order inside this set: entries bound to the log's / call's address first, then every
 * entry in file-name order. Anonymous events are skipped (they have no topic0 to dispatch on).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AbiEvent, AbiFunction } from 'viem';
import {
  compileEvent,
  compileFunction,
  type EventDescriptor,
  type FunctionDescriptor,
  pushTo,
} from './codec.js';
import { DecodeError } from './errors.js';

/** One loaded file, as listed by {@link VerifiedAbis.entries}. */
export interface VerifiedAbiEntry {
  readonly name: string;
  /** Lowercase address the ABI is verified for, when the file names one. */
  readonly address: string | null;
  readonly file: string;
  readonly events: number;
  readonly functions: number;
}

/** Compiled verified ABIs. Immutable after load; safe to share across requests. */
export interface VerifiedAbis {
  readonly entries: readonly VerifiedAbiEntry[];
  /** topic0 → events from every file, file-name order. */
  readonly events: ReadonlyMap<string, readonly EventDescriptor[]>;
  /** address → topic0 → events of the files bound to that address. */
  readonly eventsByAddress: ReadonlyMap<string, ReadonlyMap<string, readonly EventDescriptor[]>>;
  /** selector (0x + 8 hex) → functions from every file, file-name order. */
  readonly functions: ReadonlyMap<string, readonly FunctionDescriptor[]>;
  /** address → selector → functions of the files bound to that address. */
  readonly functionsByAddress: ReadonlyMap<string, ReadonlyMap<string, readonly FunctionDescriptor[]>>;
}

/** An empty set: what the decoders use when no folder is configured. */
export const NO_VERIFIED_ABIS: VerifiedAbis = {
  entries: [],
  events: new Map(),
  eventsByAddress: new Map(),
  functions: new Map(),
  functionsByAddress: new Map(),
};

const NAME_RE = /^[A-Za-z0-9_.-]{1,64}$/;
const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

/**
 * Loads every `*.json` in `dir` (not recursive), synchronously, for start-up use.
 * A missing folder yields {@link NO_VERIFIED_ABIS}. A malformed file, a bad name or address, or
 * two files with the same name throw {@link DecodeError} (`verified_abi_invalid`): refuse to
 * start rather than serve decodes from a half-read ABI set.
 */
export function loadVerifiedAbis(dir: string): VerifiedAbis {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return NO_VERIFIED_ABIS;
    throw err;
  }
  files.sort();
  return compileVerifiedAbis(
    files.map((file) => {
      const path = join(dir, file);
      try {
        return { file: path, json: JSON.parse(readFileSync(path, 'utf8')) as unknown };
      } catch (cause) {
        throw new DecodeError('verified_abi_invalid', `${path}: not readable JSON`, { cause });
      }
    }),
  );
}

/** Compiles already-parsed verified ABI documents (used by {@link loadVerifiedAbis} and tests). */
export function compileVerifiedAbis(docs: readonly { file: string; json: unknown }[]): VerifiedAbis {
  const entries: VerifiedAbiEntry[] = [];
  const events = new Map<string, EventDescriptor[]>();
  const eventsByAddress = new Map<string, Map<string, EventDescriptor[]>>();
  const functions = new Map<string, FunctionDescriptor[]>();
  const functionsByAddress = new Map<string, Map<string, FunctionDescriptor[]>>();
  const seen = new Set<string>();

  for (const { file, json } of docs) {
    const doc = json as { name?: unknown; address?: unknown; abi?: unknown };
    if (typeof doc !== 'object' || doc === null) throw invalid(file, 'not an object');
    if (typeof doc.name !== 'string' || !NAME_RE.test(doc.name))
      throw invalid(file, 'name must match [A-Za-z0-9_.-]{1,64}');
    if (seen.has(doc.name)) throw invalid(file, `duplicate name ${doc.name}`);
    seen.add(doc.name);
    if (doc.address !== undefined && (typeof doc.address !== 'string' || !ADDRESS_RE.test(doc.address)))
      throw invalid(file, 'address must be 0x + 40 hex');
    if (!Array.isArray(doc.abi)) throw invalid(file, 'abi must be an array');
    const address = typeof doc.address === 'string' ? doc.address.toLowerCase() : null;
    const source = `verified_abi:${doc.name}`;
    let nEvents = 0;
    let nFunctions = 0;
    for (const item of doc.abi as {
      type?: unknown;
      anonymous?: unknown;
      name?: unknown;
      inputs?: unknown;
    }[]) {
      if (typeof item !== 'object' || item === null) throw invalid(file, 'abi item not an object');
      if (item.type !== 'event' && item.type !== 'function') continue;
      if (typeof item.name !== 'string' || !Array.isArray(item.inputs))
        throw invalid(file, 'abi item lacks name or inputs');
      try {
        if (item.type === 'event') {
          if (item.anonymous === true) continue;
          const d = compileEvent(item as unknown as AbiEvent, source);
          pushTo(events, d.topic0, d);
          if (address) pushTo(getOrInit(eventsByAddress, address), d.topic0, d);
          nEvents++;
        } else {
          const d = compileFunction(item as unknown as AbiFunction, source);
          pushTo(functions, d.selector, d);
          if (address) pushTo(getOrInit(functionsByAddress, address), d.selector, d);
          nFunctions++;
        }
      } catch (cause) {
        throw new DecodeError('verified_abi_invalid', `${file}: cannot compile ${item.type} ${item.name}`, {
          cause,
        });
      }
    }
    entries.push({ name: doc.name, address, file, events: nEvents, functions: nFunctions });
  }
  return { entries, events, eventsByAddress, functions, functionsByAddress };
}

function getOrInit<V>(map: Map<string, Map<string, V[]>>, key: string): Map<string, V[]> {
  let m = map.get(key);
  if (!m) {
    m = new Map();
    map.set(key, m);
  }
  return m;
}

function invalid(file: string, detail: string): DecodeError {
  return new DecodeError('verified_abi_invalid', `${file}: ${detail}`);
}
