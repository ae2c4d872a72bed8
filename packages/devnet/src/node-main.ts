/**
 * The devnet node process: started detached by {@link spawnNode} (anvil.ts), it runs anvil as its
 * child on an internal port with mining off, and the JSON-RPC front (front.ts) on the devnet port,
 * whose miner mines the blocks. Both live in one process group, outlive the process that started
 * them, and stop together: a signal (SIGTERM/SIGINT) to this process stops anvil and exits; anvil
 * exiting makes this process exit too. Its stdout/stderr (and anvil's) go to `<stateDir>/anvil.log`.
 *
 * Arguments: `--port P --block-time-ms B --cache-path DIR [-- extra anvil args]`. The cache path
 * stands alone on the command line: it is how a pid is recognised as this data directory's node.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { anvilArgs, anvilBinary } from './anvil.js';
import { type Front, startFront } from './front.js';

const log = (msg: string) => process.stdout.write(`${new Date().toISOString()} ${msg}\n`);

/** How long anvil may take to print its listening address, ms. */
const ANVIL_LISTEN_TIMEOUT_MS = 20_000;
/** How long anvil may take to exit after SIGTERM before SIGKILL, ms. */
const ANVIL_STOP_GRACE_MS = 2_000;

/** Spawns anvil on a free internal port and resolves with its child process and that port. */
function startAnvil(cachePath: string, extra: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(anvilBinary(), [...anvilArgs({ port: 0, cachePath }), '--no-mining', ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('anvil printed no listening address in time')),
      ANVIL_LISTEN_TIMEOUT_MS,
    );
    child.once('exit', (code, signal) =>
      reject(new Error(`anvil exited (${code ?? signal}) before listening`)),
    );
    // anvil's own output goes to the log as it comes; its "Listening on host:port" names the port.
    let head: string | null = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      if (head === null) return;
      head += chunk.toString('utf8');
      const m = /Listening on [\d.]+:(\d+)/.exec(head);
      if (m) {
        head = null;
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]) });
      }
    });
  });
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      port: { type: 'string' },
      'block-time-ms': { type: 'string' },
      'cache-path': { type: 'string' },
    },
    allowPositionals: true,
  });
  const port = Number(values.port);
  const blockTimeMs = Number(values['block-time-ms']);
  const cachePath = values['cache-path'];
  if (!Number.isInteger(port) || !Number.isFinite(blockTimeMs) || !cachePath)
    throw new Error('usage: node-main --port P --block-time-ms B --cache-path DIR [-- anvil args]');

  let started = await startAnvil(cachePath, positionals);
  // anvil asks the kernel for any free port, and may be handed the devnet port itself: the caller
  // found it free and then spawned this process, and nothing holds it until the front listens.
  // The front could not listen then (EADDRINUSE; seen once in CI): anvil goes again, elsewhere.
  for (let i = 0; i < 3 && started.port === port; i++) {
    log(`node: anvil was handed the devnet port ${port} itself; starting it again on another`);
    const gone = new Promise((r) => started.child.once('exit', r));
    started.child.kill('SIGKILL');
    await gone;
    started = await startAnvil(cachePath, positionals);
  }
  const { child: anvil, port: internalPort } = started;
  log(`node: anvil (pid ${anvil.pid}) listens on 127.0.0.1:${internalPort}, mining off`);
  let front: Front | null = null;
  let stopping = false;
  const stop = async (why: string, code: number) => {
    if (stopping) return;
    stopping = true;
    const t0 = Date.now();
    log(`node: stopping (${why})`);
    // Whatever the front or anvil do, both are gone within the grace period (and a bit).
    setTimeout(() => {
      anvil.kill('SIGKILL');
      process.exit(code);
    }, ANVIL_STOP_GRACE_MS + 500).unref();
    const frontDown = front?.close().catch(() => undefined);
    if (anvil.exitCode === null && anvil.signalCode === null) {
      const exited = new Promise((r) => anvil.once('exit', r));
      anvil.kill('SIGTERM');
      const t = setTimeout(() => anvil.kill('SIGKILL'), ANVIL_STOP_GRACE_MS);
      await exited;
      clearTimeout(t);
    }
    await Promise.race([frontDown, new Promise((r) => setTimeout(r, 250))]);
    log(`node: stopped in ${Date.now() - t0} ms`);
    process.exit(code);
  };
  anvil.once('exit', (c, s) => void stop(`anvil exited (${c ?? s})`, 1));
  process.on('SIGTERM', () => void stop('SIGTERM', 0));
  process.on('SIGINT', () => void stop('SIGINT', 0));
  process.on('SIGHUP', () => undefined); // the terminal that started the indexer may close
  // A bug in the front must not leave anvil running without it: both go.
  process.on('uncaughtException', (err) => {
    log(`node: uncaught exception: ${err.stack ?? err.message}`);
    anvil.kill('SIGKILL');
    process.exit(1);
  });
  try {
    front = await startFront({
      host: '127.0.0.1',
      port,
      upstreamUrl: `http://127.0.0.1:${internalPort}`,
      blockTimeMs,
      log,
    });
  } catch (err) {
    log(`node: the front cannot listen on 127.0.0.1:${port}: ${(err as Error).message}`);
    await stop('front failed', 1);
  }
}

main().catch((err) => {
  log(`node: failed: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
