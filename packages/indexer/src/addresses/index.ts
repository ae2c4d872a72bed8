/**
 * The addresses domain: an address's kind (EOA, contract, unobserved) with evidence, its labels
 * and a summary, from the index's observations (the node only for recipient-only addresses).
 * Exports the reader.
 */
export {
  type AddressesReader,
  type AddressesReaderDeps,
  type AddressKind,
  type AddressLabel,
  type AddressSummary,
  createAddressesReader,
  type Observations,
} from './reader.js';
