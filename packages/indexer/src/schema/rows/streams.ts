/**
 * The stream log's contract with its writers: topics (their one-byte ids are the first key part
 * of the stream tables) and the frames projections and ingest emit with each block.
 */
export const TOPICS = {
  amm_events: 1,
  blocks: 2,
  transactions: 3,
  logs: 4,
  transfers: 5,
  creations: 6,
  launches: 7,
  heads: 8,
  pools: 9,
} as const;
export type Topic = keyof typeof TOPICS;
export const TOPIC_NAMES = Object.keys(TOPICS) as Topic[];

/** Selector values a frame can be matched on (lowercase). */
export type FrameKeys = Partial<
  Record<'tokens' | 'pools' | 'wallets' | 'launchpads' | 'addresses' | 'topics' | 'contracts', string[]>
>;

export interface PendingFrame {
  topic: Topic;
  /** SSE event name. */
  event: string;
  /** The frame's data, already serialized JSON (the same record the read routes serve). */
  json: string;
  keys: FrameKeys;
}
