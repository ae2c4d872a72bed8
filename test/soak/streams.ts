/**
 * SSE consumers of the soak: one per stream topic and indexer, each reconnecting after every drop
 * (indexer kill -9, restart on a new port, a deliberate churn) with `Last-Event-ID` set to the last
 * id it received — or, on the multiplexed `/stream/subscribe`, with `resume=topic:<id>`. Each keeps
 * the frames of the chain as it now stands (a `reorg` frame removes the frames of the blocks it
 * names), checks that sequences arrive gap-free and without duplicates, and validates every frame
 * against its route's published frame schema (test/harness/contract.ts assertFrame).
 */
import { assertContract, assertFrame } from '../harness/contract.js';
import type { IndexerProcess } from '../harness/indexer.js';
import { textChunks } from '../harness/sse.js';

/** A frame as kept by a consumer: its durable sequence, event, block and data. */
export interface KeptFrame {
  seq: number;
  event: string;
  block: number;
  data: any;
}

/** The block a frame of `topic` belongs to, from its data (single-topic routes carry no block). */
function blockOf(topic: string, data: any): number {
  switch (topic) {
    case 'blocks':
      return Number.parseInt(data.number, 16);
    case 'transactions':
    case 'logs':
      return Number.parseInt(data.blockNumber, 16);
    case 'heads':
      return data.number;
    case 'pools':
      return data.created.block;
    default:
      return data.block;
  }
}

export interface Consumer {
  readonly name: string;
  readonly topic: string;
  /** Surviving frames (reorged blocks removed), in sequence order. */
  frames(): KeptFrame[];
  /** Last sequence received (0: none). */
  lastSeq(): number;
  /** Sequence gaps, duplicates, lag events and contract violations seen. */
  problems(): string[];
  stats(): { frames: number; reorgFrames: number; connects: number; resumes: number };
  /** Drops the connection; the consumer resumes with Last-Event-ID. */
  churn(): void;
  /** Forgets surviving frames of blocks below `block` (checked for good: below any later reorg). */
  prune(block: number): void;
  close(): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts a consumer of `path` (a single-topic route, e.g. `/stream/blocks?all=true`, or
 * `/stream/subscribe?select=launches:all` with `multiplexed`) on `idx`, chain `chain`.
 */
export function startConsumer(o: {
  name: string;
  idx: IndexerProcess;
  chain: string;
  key: string;
  topic: string;
  path: string;
  multiplexed?: boolean;
  /**
   * Where the first connection starts: the store generation (hex) to resume from sequence 0 of,
   * i.e. every frame the ring holds (single-topic routes: after_sequence=0). Absent: live.
   */
  fromStartOf?: string;
}): Consumer {
  const kept: KeptFrame[] = [];
  const problems: string[] = [];
  let last = 0;
  let lastId: string | null = null;
  let first = o.fromStartOf !== undefined;
  let closed = false;
  let ctl: AbortController | null = null;
  const st = { frames: 0, reorgFrames: 0, connects: 0, resumes: 0 };
  const routePath = `/index/v1/${o.chain}${o.path.split('?')[0]}`;

  const onFrame = (event: string, id: string | null, raw: string) => {
    if (event === '' || raw === '') return;
    let data: any;
    try {
      data = JSON.parse(raw);
    } catch {
      problems.push(`${o.name}: frame data is not JSON: ${raw.slice(0, 200)}`);
      return;
    }
    try {
      assertFrame(routePath, event, id, data);
    } catch (err) {
      problems.push(`${o.name}: ${(err as Error).message.slice(0, 600)}`);
    }
    if (event === 'lag') problems.push(`${o.name}: lag event ${raw.slice(0, 300)}`);
    if (!id) return;
    // Multiplexed frames wrap the topic's frame: {topic, sequence, block, data}.
    const inner = o.multiplexed ? data.data : data;
    const seq = o.multiplexed ? Number(data.sequence) : Number(id.split('.').pop());
    if (o.multiplexed && data.topic !== o.topic) return;
    if (last && seq !== last + 1)
      problems.push(`${o.name}: sequence ${seq} after ${last} (${seq <= last ? 'duplicate' : 'gap'})`);
    if (seq <= last) return;
    last = seq;
    lastId = o.multiplexed ? `${o.topic}:${id}` : id;
    st.frames++;
    if (event === 'reorg') {
      st.reorgFrames++;
      const removed = (inner.removedBlocks as Array<{ number: number }>).map((b) => b.number);
      const from = Math.min(...removed);
      for (let i = kept.length - 1; i >= 0; i--) if (kept[i].block >= from) kept.splice(i, 1);
      return;
    }
    const block = o.multiplexed ? Number(data.block) : blockOf(o.topic, inner);
    kept.push({ seq, event: o.multiplexed ? (data.event ?? event) : event, block, data: inner });
  };

  const connectOnce = async () => {
    if (!o.idx.port) return;
    ctl = new AbortController();
    const headers: Record<string, string> = { 'x-api-key': o.key, accept: 'text/event-stream' };
    let url = `http://127.0.0.1:${o.idx.port}${routePath}?${o.path.split('?')[1] ?? ''}`;
    if (first && !lastId) {
      url += o.multiplexed
        ? `&resume=${encodeURIComponent(`${o.topic}:v1.${o.topic}-${o.fromStartOf}.0`)}`
        : '&after_sequence=0';
    } else if (lastId) {
      st.resumes++;
      if (o.multiplexed) url += `&resume=${encodeURIComponent(lastId)}`;
      else headers['last-event-id'] = lastId;
    }
    const res = await fetch(url, { headers, signal: ctl.signal });
    if (res.status !== 200) {
      const text = await res.text();
      try {
        assertContract('GET', routePath, res.status, JSON.parse(text), text);
      } catch (err) {
        problems.push(`${o.name}: ${(err as Error).message.slice(0, 600)}`);
      }
      // 503 while the restarted indexer opens; anything else is reported.
      if (res.status !== 503) problems.push(`${o.name}: connect → ${res.status} ${text.slice(0, 300)}`);
      return;
    }
    st.connects++;
    first = false;
    let buf = '';
    let event = '';
    let id: string | null = null;
    let data: string[] = [];
    for await (const chunk of textChunks(res.body!)) {
      buf += chunk;
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, '');
        buf = buf.slice(nl + 1);
        if (line === '') {
          onFrame(event || (data.length ? 'message' : ''), id, data.join('\n'));
          event = '';
          id = null;
          data = [];
        } else if (line.startsWith(':')) {
          // comment
        } else {
          const c = line.indexOf(':');
          const field = c < 0 ? line : line.slice(0, c);
          const val = c < 0 ? '' : line.slice(c + 1).replace(/^ /, '');
          if (field === 'event') event = val;
          else if (field === 'id') id = val;
          else if (field === 'data') data.push(val);
        }
        nl = buf.indexOf('\n');
      }
    }
  };

  void (async () => {
    while (!closed) {
      try {
        await connectOnce();
      } catch {
        // dropped (kill -9, churn, restart): resume below
      }
      ctl = null;
      if (!closed) await sleep(150 + Math.random() * 500);
    }
  })();

  return {
    name: o.name,
    topic: o.topic,
    frames: () => kept,
    lastSeq: () => last,
    problems: () => problems,
    stats: () => ({ ...st }),
    churn: () => ctl?.abort(),
    prune(block) {
      let i = 0;
      while (i < kept.length && kept[i].block < block) i++;
      kept.splice(0, i);
    },
    close() {
      closed = true;
      ctl?.abort();
    },
  };
}

/** The single-topic streams the soak follows on each indexer, and the multiplexed launches stream. */
export const STREAMS: Array<{ topic: string; path: string; multiplexed?: boolean }> = [
  { topic: 'blocks', path: '/stream/blocks' },
  { topic: 'heads', path: '/stream/heads' },
  { topic: 'transactions', path: '/stream/transactions?all=true' },
  { topic: 'logs', path: '/stream/logs?all=true' },
  { topic: 'transfers', path: '/stream/transfers?all=true' },
  { topic: 'amm_events', path: '/stream/amm-events?all=true' },
  { topic: 'pools', path: '/stream/pools?all=true' },
  { topic: 'creations', path: '/stream/creations?all=true' },
  { topic: 'launches', path: '/stream/subscribe?select=launches:all', multiplexed: true },
];
