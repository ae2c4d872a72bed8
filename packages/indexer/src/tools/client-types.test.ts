/**
 * The generated client is never stale: packages/client/generated/openapi.json and schema.d.ts
 * equal what `npm run client` would write from the current route list.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_GENERATED, clientTypes, contractJson } from './contract.js';

const here = (f: string) => readFileSync(new URL(f, CLIENT_GENERATED), 'utf8');

describe('typed client', () => {
  it('openapi.json is the current contract (run `npm run client` when this fails)', () => {
    expect(here('./openapi.json')).toBe(contractJson());
  });
  it('schema.d.ts is generated from it (run `npm run client` when this fails)', async () => {
    expect(here('./schema.d.ts')).toBe(await clientTypes(contractJson()));
  });
});
