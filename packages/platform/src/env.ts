/** Helpers of configuration loading shared by the indexer's and the scanner's config. */

/**
 * Integer variable `name` of `env`: `def` when unset or empty, else digits only within
 * `min..max`.
 * @throws Error naming the variable and what it got.
 */
export function envInt(env: NodeJS.ProcessEnv, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^[0-9]+$/.test(raw)) throw new Error(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new Error(`${name} must be in ${min}..${max}, got ${n}`);
  return n;
}
