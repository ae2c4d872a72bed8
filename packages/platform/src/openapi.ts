/**
 * OpenAPI helpers shared by the indexer's and the scanner's contract generators: a TypeBox schema
 * as plain JSON (its symbol keys dropped), and a route's path and query parameters as OpenAPI
 * parameter objects. Takes schemas as plain objects (no TypeBox import: TypeBox marks an optional
 * property with the symbol `TypeBox.Optional`).
 */

/** A TypeBox schema as the JSON the contract publishes (symbol-keyed metadata dropped). */
export const strip = (s: unknown): unknown => JSON.parse(JSON.stringify(s));

/** Whether a TypeBox property schema is optional (`Type.Optional`). */
const isOptional = (s: unknown) =>
  (s as Record<symbol, unknown>)[Symbol.for('TypeBox.Optional')] === 'Optional';

/**
 * The OpenAPI parameters of a route: every path parameter (required) then every query parameter
 * (required unless `Type.Optional`, with its description), schemas stripped.
 */
export function routeParameters(
  params: Record<string, unknown> | undefined,
  query: Record<string, unknown> | undefined,
): unknown[] {
  const out: unknown[] = [];
  for (const [name, s] of Object.entries(params ?? {}))
    out.push({ name, in: 'path', required: true, schema: strip(s) });
  for (const [name, s] of Object.entries(query ?? {}))
    out.push({
      name,
      in: 'query',
      required: !isOptional(s),
      schema: strip(s),
      description: (s as { description?: string }).description,
    });
  return out;
}
