/**
 * The admin socket: how the operator CLI reaches a running scanner. RocksDB lets one process open
 * the store, so while the service runs the CLI cannot open it; instead the service listens on a
 * Unix socket inside its data directory (`<SCANNER_DATA_DIR>/admin.sock`, mode 0600: only the
 * user running the service can connect, so file permissions are the authentication) and runs the
 * CLI's commands itself. Never on a TCP port, never on the public listener.
 *
 * Protocol: `POST /command` with `{command, args}` → `200 {ok: true, result}` or
 * `4xx/5xx {ok: false, error, code}`.
 */
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { withUmask } from '@chain-indexer/platform/security';
import type { Logger } from 'pino';
import { type Args, type CommandDeps, runCommand } from './commands.js';
import { ScannerError } from './errors.js';

/** Unix socket paths are limited to 107 bytes on Linux (sun_path). */
const MAX_SOCKET_PATH = 107;
const MAX_COMMAND_BYTES = 16 * 1024;
/** Longest wait for a command's e-mail before answering the CLI, ms. */
const MAIL_WAIT_MS = 3_000;

/** The admin socket path of a data directory. */
export const adminSocketPath = (dataDir: string): string => join(dataDir, 'admin.sock');

/**
 * Starts the admin socket. Any socket file already there is stale (this process holds the
 * store's lock, so no other service is using it) and is replaced. Returns null, with a warning,
 * when the path is too long for a Unix socket (the CLI then reports that it cannot reach the
 * service).
 */
export async function startAdminSocket(
  dataDir: string,
  deps: CommandDeps,
  log: Logger,
  onCommand?: () => Promise<void>,
): Promise<{ close(): Promise<void> } | null> {
  const path = adminSocketPath(dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    log.warn({ path }, 'admin socket path is too long for a Unix socket; the CLI cannot reach this service');
    return null;
  }
  if (existsSync(path)) unlinkSync(path);
  const server: Server = createServer((req, res) => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/command')
      return answer(404, { ok: false, error: 'POST /command' });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_COMMAND_BYTES) chunks.push(c);
    });
    req.on('end', async () => {
      try {
        if (size > MAX_COMMAND_BYTES) throw new ScannerError('INVALID_INPUT', 'command too large');
        const { command, args } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          command: string;
          args: Args;
        };
        const result = await runCommand(deps, String(command), args ?? {});
        log.info({ command }, 'admin command');
        // Wait a little for the command's e-mail so the CLI returns after it was handed over, but
        // never long: the command is committed and its answer may carry a secret shown only once.
        const settled = onCommand?.() ?? Promise.resolve();
        const bounded = new Promise<void>((r) => setTimeout(r, MAIL_WAIT_MS).unref());
        void Promise.race([settled, bounded]).then(() => answer(200, { ok: true, result }));
      } catch (err) {
        const e = err instanceof ScannerError ? err : null;
        answer(e ? e.status : 500, {
          ok: false,
          error: (err as Error).message,
          code: e?.code ?? 'SERVER_ERROR',
        });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // The socket file is created by the bind inside listen(): under umask 0177 it is 0600 from
    // its first instant (a chmod after listen leaves a window in which anyone may connect).
    withUmask(0o177, () => server.listen(path, () => resolve()));
  });
  chmodSync(path, 0o600);
  log.info({ path }, 'admin socket listening (the operator CLI uses it while the service runs)');
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Sends one command to a running service's admin socket.
 * @returns the service's answer, or null when nothing listens on the socket (no file, or a stale
 *   one: ECONNREFUSED / ENOENT).
 */
export function sendAdminCommand(
  dataDir: string,
  command: string,
  args: Args,
): Promise<{ ok: boolean; result?: unknown; error?: string; code?: string } | null> {
  const path = adminSocketPath(dataDir);
  if (!existsSync(path)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: path, method: 'POST', path: '/command', timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error('the admin socket did not answer within 30 s')));
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') resolve(null);
      else reject(err);
    });
    req.end(JSON.stringify({ command, args }));
  });
}
