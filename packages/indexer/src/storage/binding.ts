/**
 * The indexer's one door to the RocksDB binding, which lives in `@chain-indexer/store` (shared
 * with the scanner). Only src/storage imports this file; nothing else in the indexer imports the
 * store package (layering test).
 */
export {
  attachBatches,
  DEFAULT_ROCKS_TUNING,
  type HandleBatches,
  type NativeBatch,
  openRocks,
  type Rocks,
  type RocksTuning,
  type ScanRange,
  StoreClosedError,
  type WriteOp,
} from '@chain-indexer/store';
