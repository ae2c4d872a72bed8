/**
 * The block picker of the token, pool and wallet pages: a block number, or a time resolved to the
 * last block at or before it through `/blocks/at`, re-renders the page as of that block
 * (`#/…?at=N`); the anchor it is shown at (number, canonical hash, time) heads the page. Each
 * section then reads its route with `atBlock=N` where the contract says the route takes it, and
 * says why not where it does not (api.ts useApiAt).
 */
import { useState } from 'preact/hooks';
import { api, asOfReasonOf, type Session, useApi } from './api.js';
import { ErrorView, hrefAt, NotAsOfView, type Route } from './ui.js';

/** `0x…` quantity or number → number. */
const num = (v: unknown): number => (typeof v === 'string' ? Number(BigInt(v)) : Number(v));

/**
 * The picker and, when the page is shown as of a block, that block's anchor. `route` is the
 * page's route (its `at` the block shown, null at the head).
 */
export function BlockPicker({ session, chain, route }: { session: Session; chain: string; route: Route }) {
  const c = api(session.key);
  const at = route.at;
  const [block, setBlock] = useState(at === null ? '' : String(at));
  const [time, setTime] = useState('');
  const [err, setErr] = useState<string | null>(null);
  const go = (n: number | null) => {
    setErr(null);
    location.hash = hrefAt(route, n);
  };
  const byNumber = (e: Event) => {
    e.preventDefault();
    const v = block.trim();
    if (!/^(0|[1-9][0-9]{0,15})$/.test(v)) return setErr(`"${v}" is not a block number`);
    go(Number(v));
  };
  const byTime = async (e: Event) => {
    e.preventDefault();
    const ms = new Date(time).getTime();
    if (!time || Number.isNaN(ms)) return setErr('pick a date and time');
    const timestamp = Math.floor(ms / 1000);
    const r = await c.GET('/index/v1/{chain}/blocks/at', {
      params: { path: { chain }, query: { timestamp } },
    });
    if (!r.data) return setErr(`/blocks/at refused: ${(r.error as { detail?: string } | undefined)?.detail}`);
    const found = r.data.data.lastAtOrBefore;
    if (!found)
      return setErr(
        `no indexed block at or before ${new Date(ms).toISOString()} (${r.data.data.lastAtOrBeforeReason})`,
      );
    setBlock(String(found.number));
    go(found.number);
  };
  return (
    <section class="panel as-of" data-testid="block-picker" data-at={at ?? ''}>
      <header>
        <h2>{at === null ? 'At the head (live)' : `As of block ${at}`}</h2>
        <form class="inline" onSubmit={byNumber}>
          <input
            inputMode="numeric"
            placeholder="block number"
            value={block}
            onInput={(e) => setBlock((e.target as HTMLInputElement).value)}
            data-testid="at-block"
          />
          <button type="submit" data-testid="at-block-go">
            show at block
          </button>
        </form>
        <form class="inline" onSubmit={byTime}>
          <input
            type="datetime-local"
            step="1"
            value={time}
            onInput={(e) => setTime((e.target as HTMLInputElement).value)}
            data-testid="at-time"
          />
          <button type="submit" data-testid="at-time-go">
            show at time
          </button>
        </form>
        {at !== null && (
          <button type="button" onClick={() => go(null)} data-testid="at-head">
            back to the head
          </button>
        )}
      </header>
      <div class="body">
        {err && (
          <div class="refusal" data-testid="at-error">
            {err}
          </div>
        )}
        {at === null ? (
          <div class="muted">
            Every figure is read at the head and refreshed. Pick a block (or a time: the last block at or
            before it) to see the page as it was then.
          </div>
        ) : (
          <AsOfAnchor session={session} chain={chain} at={at} />
        )}
      </div>
    </section>
  );
}

/** The block a page is shown as of: its number, canonical hash and time, from `/blocks/{number}`. */
function AsOfAnchor({ session, chain, at }: { session: Session; chain: string; at: number }) {
  const c = api(session.key);
  const b = useApi(
    () => c.GET('/index/v1/{chain}/blocks/{number}', { params: { path: { chain, number: at as never } } }),
    [chain, at],
  );
  if (b.kind === 'loading') return <div class="muted">resolving block {at}…</div>;
  if (b.kind === 'error') return <ErrorView status={b.status} body={b.body} />;
  if (b.kind !== 'ok') return null;
  const x = b.body.data as { hash: string; timestamp: string };
  return (
    <div data-testid="as-of-anchor" data-block={at} data-hash={x.hash}>
      Shown as of the end of block <strong>{at}</strong>, hash <code data-testid="as-of-hash">{x.hash}</code>{' '}
      ({new Date(num(x.timestamp) * 1000).toISOString()}). Sections whose route does not answer as of a block
      say so instead of showing the head; live panels are off.
    </div>
  );
}

/**
 * A live panel (a stream) on a page shown as of block `at`: the stream's route `path` (a contract
 * path template) and why it is not shown, as the contract says (`x-as-of.reason`).
 */
export function LiveOff({
  path,
  at,
  title,
  testid,
}: {
  path: string;
  at: number;
  title: string;
  testid: string;
}) {
  const reason = useApi<string>(async () => {
    const why = await asOfReasonOf(path);
    return { data: why ?? 'it takes atBlock, but this panel is live only', response: new Response() };
  }, [path]);
  return (
    <section class="panel" data-testid={testid}>
      <header>
        <h2>{title}</h2>
      </header>
      <div class="body">
        {reason.kind === 'ok' && <NotAsOfView block={at} what={`GET ${path}`} reason={reason.body} />}
        {reason.kind === 'error' && <ErrorView status={reason.status} body={reason.body} />}
      </div>
    </section>
  );
}
