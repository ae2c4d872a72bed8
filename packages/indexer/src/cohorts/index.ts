/**
 * The cohorts domain: funding cohorts (wallets sharing a first native funder that bought the same
 * token) read from the wallets projection's cohort tables. Exports the reader.
 */
export {
  ADMISSION_RULE,
  type AdmissionRule,
  type CohortDetail,
  type CohortPageExtras,
  type CohortRow,
  type CohortsReader,
  type CohortsReaderDeps,
  createCohortsReader,
  type EvidenceEdge,
  type Freshness,
  type MemberRow,
  WALLET_COHORT_BOUND,
  type WalletCohort,
  type WalletCohorts,
} from './reader.js';
