/**
 * The decode subsystem's one error type. Decoding itself never throws (undecodable input is a
 * typed `unknown` result); only start-up configuration (verified ABI files) can fail.
 */
export const DECODE_ERRORS = {
  verified_abi_invalid: 'a verified ABI file is unreadable or malformed: fix or remove it (refuses to start)',
} as const;

export type DecodeErrorCode = keyof typeof DECODE_ERRORS;

export class DecodeError extends Error {
  override readonly name = 'DecodeError';
  constructor(
    readonly code: DecodeErrorCode,
    readonly detail: string,
    options?: ErrorOptions,
  ) {
    super(`${code}: ${detail}`, options);
  }
}
