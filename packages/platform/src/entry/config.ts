/** `@chain-indexer/platform/config`: reading the environment into validated settings. */

/** An integer environment variable with a default and bounds (throws on a value out of range). */
export { envInt } from '../env.js';
