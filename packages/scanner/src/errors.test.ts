/** The error registry against the spec's scanner table and the guide's table (docs/scanner.md). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCANNER_ERRORS, ScannerError } from './errors.js';

/** The spec's scanner error table ("Errors"), status and code, verbatim. */
const SPEC_TABLE: Array<[number, string]> = [
  [400, 'API_KEY_IN_URL'],
  [400, 'INVALID_INPUT'],
  [401, 'API_KEY_INVALID'],
  [401, 'API_KEY_REVOKED'],
  [403, 'API_KEY_BROWSER_NOT_ALLOWED'],
  [403, 'API_KEY_ROUTE_NOT_ALLOWED'],
  [403, 'API_KEY_IP_NOT_ALLOWED'],
  [403, 'API_PLAN_REQUIRED'],
  [403, 'FORBIDDEN'],
  [402, 'INSUFFICIENT_CREDITS'],
  [429, 'API_KEY_RATE_LIMITED'],
  [429, 'RATE_LIMITED'],
  [503, 'INTERNAL_ERROR'],
];

describe('scanner error registry', () => {
  it('holds every code of the spec table with its status', () => {
    for (const [status, code] of SPEC_TABLE)
      expect(SCANNER_ERRORS[code as keyof typeof SCANNER_ERRORS]?.status, code).toBe(status);
  });

  it('docs/scanner.md lists exactly the registry, with the same statuses', () => {
    const doc = readFileSync(new URL('../../../docs/scanner.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| (\d{3}) \| `([A-Z_]+)` \|/gm)].map(
      (m) => [Number(m[1]), m[2]] as const,
    );
    expect(Object.fromEntries(rows.map(([s, c]) => [c, s]))).toEqual(
      Object.fromEntries(Object.entries(SCANNER_ERRORS).map(([c, e]) => [c, e.status])),
    );
  });

  it('the envelope is {error, code, requestId} plus extras; only 429 and 503 are retryable', () => {
    const e = new ScannerError('API_PLAN_REQUIRED', 'no plan', { upgradeUrl: 'https://x' });
    expect(e.envelope('req_1')).toEqual({
      error: 'no plan',
      code: 'API_PLAN_REQUIRED',
      requestId: 'req_1',
      upgradeUrl: 'https://x',
    });
    const retryable = Object.keys(SCANNER_ERRORS).filter((c) => new ScannerError(c as never, '').retryable);
    expect(retryable.sort()).toEqual([
      'API_KEY_RATE_LIMITED',
      'INDEX_UNAVAILABLE',
      'INTERNAL_ERROR',
      'RATE_LIMITED',
    ]);
  });
});
