/**
 * A throwaway PostgreSQL for the bench's peers (bench/peer-subsquid.ts): Debian's server binaries
 * (`/usr/lib/postgresql/<major>/bin`, package `postgresql`), a fresh cluster by `initdb` in a temp
 * dir, started by `pg_ctl` on a free loopback port (trust authentication, user `postgres`, the
 * server's default settings otherwise), stopped by `pg_ctl stop` and removed — at the end of the
 * run, on failure and on Ctrl-C (the bench's clean-ups), and at process exit as a last resort.
 * PostgreSQL refuses to run as root: as root, the cluster belongs to the `postgres` system user.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/harness/anvil.js';
import { log, onCleanup, track } from './lib.js';

export interface Postgres {
  port: number;
  /** Server major version (e.g. "15"). */
  version: string;
  /** The postmaster's pid. */
  pid: number;
  /** Resident set of the postmaster and every backend (MiB). */
  rssMiB(): number;
  /** CPU seconds of the postmaster, its live backends and those it has reaped. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** The newest `/usr/lib/postgresql/<major>/bin` holding `pg_ctl`; throws with the install hint. */
export function postgresBin(): { bin: string; version: string } {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin/pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!majors.length)
    throw new Error(
      'PostgreSQL server not found under /usr/lib/postgresql/*/bin: apt-get install -y postgresql',
    );
  return { bin: join(root, majors[0], 'bin'), version: majors[0] };
}

function owner(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const out = execFileSync('id', ['postgres'], { encoding: 'utf8' });
  const uid = /uid=(\d+)/.exec(out)?.[1];
  const gid = /gid=(\d+)/.exec(out)?.[1];
  if (!uid || !gid) throw new Error(`bench runs as root and there is no postgres user: ${out}`);
  return { uid: Number(uid), gid: Number(gid) };
}

function runAs(cmd: string, args: string[], who: { uid: number; gid: number } | null): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = track(
      spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(who ?? {}), cwd: os.tmpdir() }),
    );
    let out = '';
    c.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    c.stderr!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    c.once('exit', (code) =>
      code === 0
        ? resolve(out)
        : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${out.slice(-3000)}`)),
    );
  });
}

/** /proc/<pid>/stat fields after the command name. */
function statFields(pid: number): string[] | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const f = statFields(Number(e));
    if (f && Number(f[1]) === ppid) out.push(Number(e));
  }
  return out;
}

function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Starts a fresh cluster; the caller stops it (the bench's clean-ups do too). */
export async function startPostgres(): Promise<Postgres> {
  const { bin, version } = postgresBin();
  const who = owner();
  const dir = mkdtempSync(join(os.tmpdir(), 'indexer-bench-pg-'));
  if (who) chownSync(dir, who.uid, who.gid);
  const data = join(dir, 'data');
  const port = await freePort();
  const t0 = performance.now();
  await runAs(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-instructions'],
    who,
  );
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`;
  const pgCtl = join(bin, 'pg_ctl');
  let stopped = false;
  const stopSync = () => {
    if (stopped) return;
    stopped = true;
    try {
      execFileSync(pgCtl, ['stop', '-D', data, '-m', 'immediate', '-w'], { stdio: 'ignore', ...(who ?? {}) });
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  };
  // Ctrl-C or a throw anywhere in the bench: the clean-ups stop it; a hard exit: the exit hook.
  process.once('exit', stopSync);
  onCleanup(stopSync);
  await runAs(pgCtl, ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'server.log'), '-o', opts], who);
  const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  log(
    `postgres ${version}: ${data} on 127.0.0.1:${port} (pid ${pid}), up in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  return {
    port,
    version,
    pid,
    rssMiB: () => rssOf(pid) + childrenOf(pid).reduce((a, c) => a + rssOf(c), 0),
    cpuSeconds() {
      const f = statFields(pid);
      if (!f) return Number.NaN;
      // utime, stime, cutime, cstime of the postmaster (backends it reaped count in cutime/cstime).
      let ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
      for (const c of childrenOf(pid)) {
        const g = statFields(c);
        if (g) ticks += Number(g[11]) + Number(g[12]);
      }
      return ticks / 100;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        await runAs(pgCtl, ['stop', '-D', data, '-m', 'fast', '-w', '-t', '30'], who);
      } catch (e) {
        log(`postgres: ${(e as Error).message}`);
        try {
          execFileSync(pgCtl, ['stop', '-D', data, '-m', 'immediate', '-w'], {
            stdio: 'ignore',
            ...(who ?? {}),
          });
        } catch {}
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
