/**
 * E-mail notifications of key changes (spec, "Scanner API keys" 6): create, roll, revoke and
 * revoke-all send a message to the account's address with the key name, the time and the IP the
 * change came from. Renames and allowlist edits are only recorded in the activity list.
 *
 * Sent through nodemailer: to the SMTP server of `SMTP_URL`, or, when it is unset, written as
 * `.eml` files into the outbox directory (the log says where at start-up). Sending never delays or
 * fails the change itself: the change is already committed; a failed send is logged.
 * Messages carry the key's display prefix, never the secret.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FILE_MODE, privateDir } from '@chain-indexer/platform/security';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

/** One key change to notify. */
export interface KeyNotice {
  kind: 'created' | 'rolled' | 'revoked' | 'revoked_all';
  to: string;
  accountName: string;
  /** The keys concerned (for a roll: the new key; the old one keeps its name). */
  keys: Array<{ name: string; prefix: string }>;
  at: number;
  /** The IP the change came from (`cli` for operator commands). */
  ip: string;
  /** For a roll: until when the old key keeps working (ms), or null when it was revoked at once. */
  graceUntil?: number | null;
}

export interface Notifier {
  /** Queues a notice; never throws. */
  notify(n: KeyNotice): void;
  /** Resolves once every queued notice was sent (or failed and was logged). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const SUBJECT: Record<KeyNotice['kind'], string> = {
  created: 'API key created',
  rolled: 'API key rolled',
  revoked: 'API key revoked',
  revoked_all: 'All API keys revoked',
};

/** Subject and plain-text body of a notice. */
export function renderNotice(n: KeyNotice): { subject: string; text: string } {
  const when = new Date(n.at).toISOString();
  const list = n.keys.map((k) => `  - "${k.name}" (${k.prefix}…)`).join('\n');
  const what =
    n.kind === 'created'
      ? 'A new API key was created'
      : n.kind === 'rolled'
        ? 'An API key was rolled (a new secret, same name and allowlist)'
        : n.kind === 'revoked'
          ? 'An API key was revoked'
          : 'Every API key of the account was revoked';
  const grace =
    n.kind === 'rolled'
      ? n.graceUntil
        ? `\nThe previous secret keeps working until ${new Date(n.graceUntil).toISOString()}.`
        : '\nThe previous secret was revoked at once.'
      : '';
  const text = `${what} on the account "${n.accountName}".\n\nKey${n.keys.length === 1 ? '' : 's'}:\n${list}\nTime: ${when}\nFrom IP: ${n.ip}${grace}\n\nIf this was not you, revoke the key from the dashboard and contact support.\n`;
  const name = n.keys.length === 1 ? `: ${n.keys[0].name}` : ` (${n.keys.length})`;
  return { subject: `${SUBJECT[n.kind]}${name}`, text };
}

/**
 * Creates the notifier: SMTP when `smtpUrl` is set, otherwise `.eml` files in `outboxDir`.
 */
export function createNotifier(o: {
  smtpUrl: string | null;
  outboxDir: string;
  from: string;
  log: Logger;
}): Notifier {
  const pending = new Set<Promise<void>>();
  let seq = 0;
  const transport = o.smtpUrl
    ? nodemailer.createTransport(o.smtpUrl)
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  if (!o.smtpUrl) {
    privateDir(o.outboxDir);
    o.log.info(
      { outbox: o.outboxDir },
      `SMTP_URL is unset: key notifications are written to ${o.outboxDir} as .eml files`,
    );
  }
  const send = async (n: KeyNotice) => {
    const { subject, text } = renderNotice(n);
    const info = await transport.sendMail({ from: o.from, to: n.to, subject, text });
    if (!o.smtpUrl) {
      const file = join(
        o.outboxDir,
        `${new Date(n.at).toISOString().replace(/[:.]/g, '-')}-${process.pid}-${++seq}-${n.kind}.eml`,
      );
      writeFileSync(file, (info as unknown as { message: Buffer }).message, { mode: FILE_MODE });
    }
  };
  return {
    notify(n) {
      const p = send(n).then(
        () => {},
        (err: Error) => o.log.error({ err: err.message, kind: n.kind }, 'key notification e-mail failed'),
      );
      pending.add(p);
      void p.finally(() => pending.delete(p));
    },
    async flush() {
      while (pending.size) await Promise.all([...pending]);
    },
    async close() {
      await this.flush();
      transport.close();
    },
  };
}
