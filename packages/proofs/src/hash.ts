/**
 * Keccak-256 for the encoders and the trie builder. The default is `@noble/hashes` (pure JS, no
 * set-up: what the typed client uses to verify a proof). A process that hashes a lot — the
 * indexer's decode workers rebuild two tries per block — switches to `hash-wasm`'s WebAssembly
 * Keccak with {@link useWasmKeccak} (about 10× faster on this project's bench machine), checked
 * against a known vector before it is used.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';

let impl: (b: Uint8Array) => Uint8Array = keccak_256;

/** keccak256(bytes), 32 bytes. */
export const keccak = (b: Uint8Array): Uint8Array => impl(b);

/** keccak256("") — the check vector. */
const EMPTY = 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';

/**
 * Switches {@link keccak} to hash-wasm's WebAssembly implementation for this thread (idempotent).
 * @throws Error when the WASM module does not load or does not hash the check vector right (the
 * JS implementation then stays in use only if the caller catches).
 */
export async function useWasmKeccak(): Promise<void> {
  if (impl !== keccak_256) return;
  const { createKeccak } = await import('hash-wasm');
  const h = await createKeccak(256);
  const wasm = (b: Uint8Array): Uint8Array => {
    h.init();
    h.update(b);
    return h.digest('binary');
  };
  const got = Buffer.from(wasm(new Uint8Array(0))).toString('hex');
  if (got !== EMPTY) throw new Error(`hash-wasm keccak256("") = ${got}, expected ${EMPTY}`);
  impl = wasm;
}
