/**
 * Renders a benchmark JSON report as its HTML report (charts), beside it:
 *
 *   node dist/bench/html.js bench/results/<report>.json [--previous <other>.json]
 *
 * Without --previous it compares with the previous committed report of the same mode in the same
 * directory (bench/report-html.ts previousCommitted).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Results } from './report.js';
import { html, previousCommitted } from './report-html.js';

const args = process.argv.slice(2);
const file = args.find((a) => a.endsWith('.json') && args[args.indexOf(a) - 1] !== '--previous');
if (!file) {
  process.stderr.write('usage: node dist/bench/html.js <report.json> [--previous <report.json>]\n');
  process.exit(2);
}
const cur = JSON.parse(readFileSync(file, 'utf8')) as Results;
const i = args.indexOf('--previous');
const prev =
  i >= 0
    ? { file: args[i + 1], results: JSON.parse(readFileSync(args[i + 1], 'utf8')) as Results }
    : previousCommitted(dirname(file), cur);
const out = file.replace(/\.json$/, '.html');
writeFileSync(out, html(cur, prev?.results ?? null));
process.stdout.write(`written ${out}${prev ? ` (compared with ${basename(prev.file)})` : ''}\n`);
