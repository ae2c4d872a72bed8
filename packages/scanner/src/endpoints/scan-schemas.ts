/**
 * Schemas of the scan endpoints (TypeBox; published in the scanner's OpenAPI document), one file
 * per endpoint family under scan-schemas/: common.ts (the anchor every answer carries, addresses,
 * shares, evidence coordinates, funding hops, USD marks), wallet.ts, token.ts, contract.ts and
 * people.ts (traders). The endpoints import them from here.
 */
export {
  Address,
  AddressInput,
  Amount,
  AnchorSchema,
  ApproxSchema,
  CoordinateSchema,
  FundingChainSchema,
  FundingHopSchema,
  Hash,
  INDEX_ERRORS,
  LabelSchema,
  Nullable,
  ShareSchema,
  UsdMarkSchema,
  WalletFirstSeenSchema,
} from './scan-schemas/common.js';
export * from './scan-schemas/contract.js';
export * from './scan-schemas/people.js';
export * from './scan-schemas/token.js';
export * from './scan-schemas/wallet.js';
