/**
 * The operator CLI: `node packages/scanner/dist/cli.js <command> [--flag value ...]` (the scanner
 * package's `chain-scanner` bin, bin/chain-scanner.js).
 *
 *   create-account  --email <address> [--name <name>]
 *   set-plan        --account <id> --plan scale|enterprise|none [--days <n> | --period-end <ISO>]
 *                   [--status active|cancelled] [--rate <req/min> | --rate default]
 *   set-api-access  --account <id> --on | --off
 *   grant-credits   --account <id> --scans <n> [--note <text>]
 *   create-session  --account <id> [--hours <n>]          prints a dashboard session token once
 *   create-key      --account <id> --name <name> [--allow <cidr,...>]   prints the key once
 *   list            [--account <id>]
 *
 * The store is SCANNER_DATA_DIR (or --data-dir). RocksDB allows one process per store, so:
 * when a scanner service runs on that directory (standalone or inside the indexer), the CLI
 * sends the command to the service's admin socket (`<dir>/admin.sock`, see admin.ts) and the
 * service runs it; when none runs, the CLI opens the store itself and runs the same command.
 * If the store is held by a process that does not answer on the socket, it refuses with a
 * message saying so and exits 2. Output is JSON on stdout; errors go to stderr with exit 1.
 */

import { redact, redactingLoggerOptions } from '@chain-indexer/platform/security';
import { pino } from 'pino';
import { sendAdminCommand } from './admin.js';
import { type Args, COMMAND_HELP, runCommand } from './commands.js';
import { loadScannerConfig } from './config.js';
import { openScannerCore } from './core.js';
import { StoreLockedError } from './store.js';

function parseArgs(argv: string[]): { command: string; args: Args } {
  const [command = '', ...rest] = argv;
  const args: Args = {};
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument "${a}"`);
    const name = a.slice(2);
    const next = rest[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      args[name] = next;
      i++;
    } else args[name] = true;
  }
  return { command, args };
}

function usage(): string {
  return `usage: node packages/scanner/dist/cli.js <command> [flags]\n${Object.entries(COMMAND_HELP)
    .map(([c, h]) => `  ${c.padEnd(15)} ${h}`)
    .join('\n')}\nStore: SCANNER_DATA_DIR or --data-dir (default ./data/scanner).\n`;
}

async function main(): Promise<number> {
  const { command, args } = parseArgs(process.argv.slice(2));
  if (!command || command === 'help' || args.help) {
    process.stdout.write(usage());
    return command ? 0 : 1;
  }
  const env = { ...process.env };
  if (typeof args['data-dir'] === 'string') env.SCANNER_DATA_DIR = args['data-dir'];
  delete args['data-dir'];
  const config = loadScannerConfig(env);

  const viaSocket = await sendAdminCommand(config.dataDir, command, args);
  if (viaSocket) {
    if (!viaSocket.ok) {
      process.stderr.write(`error (${viaSocket.code}): ${viaSocket.error}\n`);
      return 1;
    }
    process.stdout.write(`${JSON.stringify(viaSocket.result, null, 2)}\n`);
    return 0;
  }

  if (config.natsUrl) {
    // Shared mode: the accounts, keys and credits live in the JetStream KV bucket; a change made
    // on the local store alone would never reach the other servers.
    process.stderr.write(
      `the scanner shares its state on NATS (${config.natsUrl}): run this command against a running scanner service (its admin socket ${config.dataDir}/admin.sock)\n`,
    );
    return 2;
  }
  const log = pino({ level: 'warn', ...redactingLoggerOptions() }, pino.destination(2));
  let core: Awaited<ReturnType<typeof openScannerCore>>;
  try {
    core = await openScannerCore(config, log);
  } catch (err) {
    if (err instanceof StoreLockedError) {
      process.stderr.write(
        `the scanner store ${config.dataDir} is open in another process that does not answer on its admin socket (${config.dataDir}/admin.sock); stop that process or run the command against the running scanner service\n`,
      );
      return 2;
    }
    throw err;
  }
  try {
    const result = await runCommand({ ...core, sessionHours: config.sessionHours }, command, args);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    const code = (err as { code?: string }).code;
    process.stderr.write(`error${code ? ` (${code})` : ''}: ${redact((err as Error).message)}\n`);
    return 1;
  } finally {
    await core.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`fatal: ${redact(String((err as Error).stack ?? err))}\n`);
    process.exit(1);
  },
);
