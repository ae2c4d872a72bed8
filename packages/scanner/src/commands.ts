/**
 * Operator commands: create accounts and dashboard sessions, set plans, API access and credits,
 * create keys, list. Run by the CLI, either directly on the store (no service running) or through
 * the running service's admin socket (admin.ts) — the same function in both cases, so the rules
 * are the same. Secrets (session tokens, keys) are in the result once and nowhere else.
 */
import { MAX_SESSION_HOURS } from './accounts.js';
import type { ScannerCore } from './core.js';
import { ScannerError } from './errors.js';
import { keyState } from './model.js';
import { planView } from './plans.js';

/** Command arguments: `--name value` flags (a bare flag is `true`). */
export type Args = Record<string, string | true>;

/** The parts a command uses. */
export type CommandDeps = Pick<ScannerCore, 'accounts' | 'directory' | 'ledger' | 'now'> & {
  /** Default session lifetime, hours. */
  sessionHours: number;
  /** Shared mode only (shared/state.ts): the counters `shared-status` answers. */
  sharedStatus?: () => SharedStatus;
};

/** What `shared-status` answers: a shared-mode server's contact and refused-record counters. */
export interface SharedStatus {
  serverId: string;
  /** Instant (ms) the server last knew its copy of the bucket current. */
  lastContact: number;
  /** Records refused since start: `mac` failed their MAC, `replay` carried a version that does not increase. */
  refused: { mac: number; replay: number };
}

const CLI = { ip: 'cli' };

function need(args: Args, name: string): string {
  const v = args[name];
  if (typeof v !== 'string' || v === '')
    throw new ScannerError('INVALID_INPUT', `--${name} <value> is required`);
  return v;
}

function positiveInt(args: Args, name: string): number | undefined {
  const v = args[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^[1-9][0-9]{0,14}$/.test(v))
    throw new ScannerError('INVALID_INPUT', `--${name} must be a positive whole number`);
  return Number(v);
}

/** Usage text of every command (the CLI prints it). */
export const COMMAND_HELP: Record<string, string> = {
  'create-account': '--email <address> [--name <name>]',
  'set-plan':
    '--account <id> --plan scale|enterprise|none [--days <n> | --period-end <ISO time>] [--status active|cancelled] [--rate <req/min> | --rate default]',
  'set-api-access': '--account <id> --on | --off',
  'grant-credits': '--account <id> --scans <n> [--note <text>]',
  'create-session': `--account <id> [--hours <n ≤ ${MAX_SESSION_HOURS}>]   (prints the session token once)`,
  'revoke-session': '--account <id> --session <prefix> | --all',
  'create-key': '--account <id> --name <name> [--allow <cidr,cidr,...>]   (prints the key once)',
  list: '[--account <id>]',
  'shared-status': '   (shared mode: contact, and records refused as forged or replayed since start)',
};

/**
 * Runs one command; the result is a Promise for a grant on the shared ledger (await it).
 * @throws ScannerError (bad input, unknown account) or Error.
 */
export function runCommand(d: CommandDeps, command: string, args: Args): unknown {
  switch (command) {
    case 'create-account': {
      const a = d.accounts.createAccount({
        email: need(args, 'email'),
        name: typeof args.name === 'string' ? args.name : undefined,
      });
      return { account: { id: a.id, email: a.email, name: a.name } };
    }
    case 'set-plan': {
      const accountId = need(args, 'account');
      const tier = need(args, 'plan') as 'scale' | 'enterprise' | 'none';
      const days = positiveInt(args, 'days');
      let periodEnd: number | undefined;
      if (typeof args['period-end'] === 'string') {
        periodEnd = Date.parse(args['period-end']);
        if (Number.isNaN(periodEnd))
          throw new ScannerError('INVALID_INPUT', '--period-end must be an ISO time');
      } else if (days !== undefined) periodEnd = d.now() + days * 86_400_000;
      else if (tier !== 'none') periodEnd = d.now() + 30 * 86_400_000;
      const rate = args.rate === 'default' ? null : positiveInt(args, 'rate');
      const status = args.status as 'active' | 'cancelled' | undefined;
      const a = d.accounts.setPlan(accountId, {
        tier,
        ...(periodEnd !== undefined ? { periodEnd } : {}),
        ...(status ? { status } : tier !== 'none' ? { status: 'active' as const } : {}),
        ...(rate !== undefined
          ? { ratePerMinute: rate }
          : tier !== 'enterprise'
            ? { ratePerMinute: null }
            : {}),
      });
      return { account: a.id, plan: planView(a.plan, d.now()) };
    }
    case 'set-api-access': {
      if (args.on === args.off) throw new ScannerError('INVALID_INPUT', 'give exactly one of --on or --off');
      const a = d.accounts.setApiAccess(need(args, 'account'), args.on === true);
      return { account: a.id, apiAccess: a.apiAccess };
    }
    case 'grant-credits': {
      const accountId = need(args, 'account');
      d.accounts.account(accountId);
      const scans = positiveInt(args, 'scans');
      if (scans === undefined) throw new ScannerError('INVALID_INPUT', '--scans <n> is required');
      const e = d.ledger.grant(accountId, scans, typeof args.note === 'string' ? args.note : null, d.now());
      const done = (row: { balance: number }) => ({
        account: accountId,
        granted: scans,
        remainingScans: row.balance,
      });
      return e instanceof Promise ? e.then(done) : done(e);
    }
    case 'create-session': {
      const hours = positiveInt(args, 'hours') ?? d.sessionHours;
      const { token, session } = d.accounts.createSession(need(args, 'account'), hours * 3_600_000);
      return {
        account: session.accountId,
        session: token,
        expiresAt: new Date(session.expiresAt).toISOString(),
      };
    }
    case 'revoke-session': {
      const accountId = need(args, 'account');
      const all = args.all === true;
      const prefix = typeof args.session === 'string' ? args.session : null;
      if (all === (prefix !== null))
        throw new ScannerError('INVALID_INPUT', 'give exactly one of --session <prefix> or --all');
      const revoked = d.accounts.revokeSessions(accountId, prefix);
      return { account: accountId, revoked: revoked.map((s) => s.prefix) };
    }
    case 'create-key': {
      const allow =
        typeof args.allow === 'string'
          ? args.allow
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : [];
      const { key, secret } = d.accounts.createKey(
        need(args, 'account'),
        { name: need(args, 'name'), allowlist: allow },
        CLI,
      );
      return { account: key.accountId, key: d.accounts.view(key), secret };
    }
    case 'list': {
      const now = d.now();
      const only = typeof args.account === 'string' ? args.account : null;
      const accounts = d.directory.accounts().filter((a) => only === null || a.id === only);
      if (only && accounts.length === 0) throw new ScannerError('NOT_FOUND', 'no such account');
      return {
        accounts: accounts.map((a) => ({
          id: a.id,
          email: a.email,
          name: a.name,
          apiAccess: a.apiAccess,
          plan: planView(a.plan, now),
          remainingScans: d.ledger.balance(a.id),
          keys: d.directory.keysOf(a.id).map((k) => ({
            id: k.id,
            name: k.name,
            prefix: k.prefix,
            state: keyState(k, now),
            allowlist: k.allowlist,
          })),
          sessions: d.directory.sessionsOf(a.id).map((s) => ({
            prefix: s.prefix,
            expiresAt: new Date(s.expiresAt).toISOString(),
            state: s.revokedAt ? 'revoked' : s.expiresAt <= now ? 'expired' : 'active',
          })),
        })),
      };
    }
    case 'shared-status': {
      if (!d.sharedStatus)
        throw new ScannerError('INVALID_INPUT', 'this scanner does not share its state (no NATS URL)');
      return d.sharedStatus();
    }
    default:
      throw new ScannerError(
        'INVALID_INPUT',
        `unknown command "${command.slice(0, 40)}"; commands: ${Object.keys(COMMAND_HELP).join(', ')}`,
      );
  }
}
