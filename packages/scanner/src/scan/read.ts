/**
 * How scan endpoints read the index: the chain of an endpoint family (`main` for the unprefixed
 * endpoints, `rh` for the /rh/ family), one anchored read through {@link IndexPort.read}, and the
 * indexer's typed refusals mapped to the scanner's codes, once:
 *
 * | indexer code | scanner code |
 * |---|---|
 * | not_found, unknown_chain | 404 NOT_FOUND |
 * | bad_request | 400 INVALID_INPUT |
 * | not_ready, projection_unavailable, ingest_halted, replica_lagging, node_unavailable | 503 INDEX_UNAVAILABLE (`reason` = the indexer code, plus its detail fields) |
 *
 * Anything else propagates (500 SERVER_ERROR, logged). A refused scan is charged nothing.
 */
import { ServiceError } from '@chain-indexer/platform/errors';
import { ScannerError } from '../errors.js';
import type { Anchored, ChainAnchor, IndexPort, ReadCtx } from '../index-port.js';

/** The scanner's endpoint families: unprefixed endpoints read `main`, the /rh/ family `rh`. */
export type ScanRole = 'main' | 'rh';

/**
 * The name of the chain serving `role`.
 * @throws ScannerError CHAIN_NOT_CONFIGURED naming what is missing (`missing`: `index`,
 *   `SCANNER_RH_CHAIN`).
 */
export function chainFor(index: IndexPort, role: ScanRole): string {
  const chains = index.chains();
  const c = chains.find((x) => x.role === role);
  if (c) return c.name;
  if (chains.length === 0)
    throw new ScannerError(
      'CHAIN_NOT_CONFIGURED',
      'no index is attached to this scanner: scan endpoints are served by the scanner started inside the indexer (npm start, SCANNER=on)',
      { missing: 'index' },
    );
  throw new ScannerError(
    'CHAIN_NOT_CONFIGURED',
    role === 'rh'
      ? `no chain has the scanner role "rh": set SCANNER_RH_CHAIN to a served chain (served: ${chains.map((x) => x.name).join(', ')}), or run the embedded devnet with DEVNET_CHAINS=2`
      : 'no chain has the scanner role "main" (SCANNER_MAIN_CHAIN)',
    { missing: role === 'rh' ? 'SCANNER_RH_CHAIN' : 'SCANNER_MAIN_CHAIN' },
  );
}

const UNAVAILABLE = new Set([
  'not_ready',
  'projection_unavailable',
  'ingest_halted',
  'replica_lagging',
  'node_unavailable',
]);

/** The scanner's form of an indexer refusal (see the table above); other errors are returned as they are. */
export function mapIndexError(err: unknown): unknown {
  if (!(err instanceof ServiceError)) return err;
  if (err.code === 'not_found' || err.code === 'unknown_chain')
    return new ScannerError('NOT_FOUND', err.detail, undefined, [], { cause: err });
  if (err.code === 'bad_request')
    return new ScannerError('INVALID_INPUT', err.detail, undefined, [], { cause: err });
  if (UNAVAILABLE.has(err.code))
    return new ScannerError('INDEX_UNAVAILABLE', err.detail, { reason: err.code, ...(err.extra ?? {}) }, [], {
      cause: err,
    });
  return err;
}

/**
 * Reads chain `chain` at one anchor (see {@link IndexPort.read}) and maps the indexer's refusals.
 * A promise `value` (a node read after the synchronous part) has its rejection mapped too.
 * @throws ScannerError as mapped by {@link mapIndexError}.
 */
export function readChain<T>(index: IndexPort, chain: string, fn: (ctx: ReadCtx) => T): Anchored<T> {
  let out: Anchored<T>;
  try {
    out = index.read(chain, fn);
  } catch (err) {
    throw mapIndexError(err);
  }
  const v = out.value as unknown;
  if (v instanceof Promise)
    return {
      anchor: out.anchor,
      value: v.catch((err) => {
        throw mapIndexError(err);
      }) as T,
    };
  return out;
}

/** Reads the chain of `role` at one anchor ({@link chainFor} then {@link readChain}). */
export function readRole<T>(index: IndexPort, role: ScanRole, fn: (ctx: ReadCtx) => T): Anchored<T> {
  return readChain(index, chainFor(index, role), fn);
}

/** The anchor as published in every scan answer. */
export const anchorJson = (a: ChainAnchor) => ({ chain: a.chain, block: a.block, hash: a.hash });
