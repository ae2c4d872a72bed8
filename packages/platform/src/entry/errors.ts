/** `@chain-indexer/platform/errors`: the shape of an error registry and the one error base. */

/** A registry code's HTTP status and meaning, and a registry of them. */
export type { ErrorRegistry, ErrorSpec } from '../errors.js';
/** The base of every coded error the products raise (code, status, detail, cause). */
export { ServiceError } from '../errors.js';
