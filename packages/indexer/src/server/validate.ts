/**
 * Request validation compiled once per route (TypeBox TypeCompiler). Query strings are converted
 * by the schema's declared type (strict integer/boolean syntax) before the compiled check, so
 * `limit=1e3`, `limit=-1` or `limit=abc` are refused, never coerced.
 */
import { Kind, type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { AS_OF_PARAMS } from './as-of.js';
import { ApiError } from './errors.js';

export interface CompiledObject {
  /** @throws ApiError bad_request with the first violation. */
  parse(raw: Record<string, string>): Record<string, unknown>;
}

const INT_RE = /^-?(0|[1-9][0-9]{0,15})$/;

function convert(schema: TSchema, v: string): unknown {
  const t = (schema as { type?: string }).type;
  if (t === 'integer' || t === 'number') return INT_RE.test(v) ? Number(v) : v;
  if (t === 'boolean') return v === 'true' ? true : v === 'false' ? false : v;
  return v;
}

/** Compiles an object schema over string-valued inputs (path params or query). */
export function compileObject(props: TProperties | undefined, what: 'path' | 'query'): CompiledObject {
  const schema: TObject = Type.Object(props ?? {}, { additionalProperties: false });
  const check = TypeCompiler.Compile(schema);
  const names = new Set(Object.keys(schema.properties));
  return {
    parse(raw) {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(raw)) {
        if (!names.has(k))
          throw new ApiError(
            'bad_request',
            what === 'query' && AS_OF_PARAMS.has(k)
              ? `this route does not answer as of a block: "${k}" is taken only by the routes whose contract lists it`
              : `unknown ${what} parameter "${k}"`,
          );
        out[k] = convert(schema.properties[k], raw[k]);
      }
      if (!check.Check(out)) {
        const e = check.Errors(out).First();
        const name = e?.path.replace(/^\//, '') || '';
        throw new ApiError('bad_request', `invalid ${what} parameter "${name}": ${e?.message ?? 'invalid'}`);
      }
      // Apply declared defaults for absent optional parameters.
      for (const k of names) {
        const d = (schema.properties[k] as { default?: unknown }).default;
        if (out[k] === undefined && d !== undefined) out[k] = d;
      }
      return out;
    },
  };
}

/** Parses a raw query string; a repeated parameter is refused (ambiguous). */
export function parseQuery(q: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!q) return out;
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(q);
  } catch {
    throw new ApiError('bad_request', 'malformed query string');
  }
  for (const [k, v] of params) {
    if (k in out) throw new ApiError('bad_request', `query parameter "${k}" given more than once`);
    out[k] = v;
  }
  return out;
}

export { Kind };
