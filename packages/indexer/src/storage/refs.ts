/** The storage's coordinates of a block and of the chain a data directory belongs to. */

/** A canonical block coordinate: number and 0x-prefixed 32-byte hash. */
export interface BlockRef {
  number: number;
  hash: `0x${string}`;
}

/** Identity of the chain a data directory belongs to; compared with the node at start-up. */
export interface ChainIdentity {
  chain: string;
  chainId: number;
  /** Hash of the first block this store indexed (block 0 for a full index). */
  firstBlockHash: `0x${string}`;
  firstBlock: number;
}
