/** Service version, published in the contract (info.version) and in /health. */
export const VERSION = '0.1.0';
