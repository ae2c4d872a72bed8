/**
 * Shared TypeBox schemas: path parameters, PAGE parameters, the anchor, the page record and the
 * error envelope. Route files compose these; the contract is generated from them.
 */
import { type ObjectOptions, type TProperties, type TSchema, Type } from '@sinclair/typebox';

/**
 * An object the project owns: closed (`additionalProperties: false`), so a field the schema does
 * not name is a contract violation the e2e harness catches. Use it for every response object.
 */
export const Obj = <T extends TProperties>(props: T, opts: ObjectOptions = {}) =>
  Type.Object(props, { additionalProperties: false, ...opts });

/** `T | null`; pair it with a sibling reason field (R7: null always carries a reason). */
export const Nullable = <T extends TSchema>(t: T, description?: string) =>
  Type.Union([t, Type.Null()], description ? { description } : {});

/** A reason code from a documented vocabulary, or null when the sibling value is present. */
export const ReasonOf = (codes: readonly string[], description?: string) =>
  Type.Union([...codes.map((c) => Type.Literal(c)), Type.Null()], {
    description: description ?? `why the sibling value is null: ${codes.join(', ')}; null when it is present`,
  });

/** A string enum. */
export const Enum = (values: readonly string[], description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  );

/**
 * The decimal sibling of an exact rational (R6: approximate values say so): the rational beside it,
 * in the same unit, rounded to 12 significant digits half away from zero, plain notation
 * (`packages/platform/src/decimal.ts`). The rational stays the exact figure.
 */
export const Approx = (unit: string) =>
  Obj(
    {
      decimal: Type.String({
        pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$',
        description: `${unit}, rounded to significantDigits significant digits`,
      }),
      approximate: Type.Literal(true, { description: 'always true: a rounded form of the exact rational' }),
      significantDigits: Type.Literal(12, { description: 'precision of decimal' }),
    },
    { description: `${unit}: decimal of the exact rational beside it (approximate)` },
  );

/** An exact rational price `{priceNumerator, priceDenominator}` (decimal strings; see the unit) and its decimal. */
export const RationalPrice = (unit: string) =>
  Obj(
    {
      priceNumerator: Type.String({ pattern: '^-?(0|[1-9][0-9]*)$' }),
      priceDenominator: Type.String({ pattern: '^[1-9][0-9]*$' }),
      approx: Approx(unit),
    },
    { description: `exact rational: ${unit}` },
  );

/** A count that fits a double exactly (rows, trades, blocks). */
export const Count = (description: string) => Type.Integer({ minimum: 0, description });

/** Unix seconds. */
export const UnixSeconds = (description = 'unix seconds') => Type.Integer({ minimum: 0, description });

/** A chain coordinate: block, transaction index, log index (null for a transaction-level fact) and hash. */
export const Coordinate = Obj(
  {
    block: Type.Integer({ minimum: 0 }),
    txIndex: Type.Integer({ minimum: 0 }),
    logIndex: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    txHash: Type.String({ pattern: '^0x[0-9a-f]{64}$' }),
  },
  { description: 'chain coordinate' },
);

/** A string schema of `pattern` with its description. */
const patterned = (pattern: string, description: string) => Type.String({ pattern, description });

/** 0x-prefixed 20-byte hex address. */
export const Address = patterned('^0x[0-9a-fA-F]{40}$', '0x-prefixed 20-byte hex address');
/** 0x-prefixed 32-byte hex hash. */
export const Hash = patterned('^0x[0-9a-fA-F]{64}$', '0x-prefixed 32-byte hex hash');
/** A canonical block number as a decimal path segment. */
export const BlockNumber = patterned('^(0|[1-9][0-9]{0,14})$', 'decimal block number');
/** Base-unit integer amount as a decimal string (R6). */
export const Amount = patterned('^-?(0|[1-9][0-9]*)$', 'integer in base units, decimal string');
/** A signed integer as a decimal string, no description (the parts of exact rationals). */
export const IntString = Type.String({ pattern: '^-?(0|[1-9][0-9]*)$' });
export const Chain = Type.String({ pattern: '^[a-z0-9-]{1,32}$', description: 'chain name' });

/** The snapshot anchor every data response carries (R1): the head its storage snapshot saw. */
export const Anchor = Obj(
  {
    block: Type.Integer({ minimum: 0, description: 'anchor block number' }),
    hash: Hash,
  },
  { description: 'canonical (block, hash) every row of the response was read at' },
);

/** Why a page ended: the data ran out, or which bound stopped it (see Limits). */
export const StoppedBy = Type.Union(
  [
    Type.Literal('exhausted'),
    Type.Literal('rows'),
    Type.Literal('rows_usd_sibling'),
    Type.Literal('rows_separate_marks'),
    Type.Literal('bytes'),
  ],
  {
    description:
      'exhausted: no more rows; rows: the limit (max 1000); rows_usd_sibling: 200-row cap of pages with a USD sibling; rows_separate_marks: 100-row cap when each row may need its own mark; bytes: the 4 MiB serialized budget',
  },
);

export const PageInfo = Obj({
  order: Type.Union([Type.Literal('asc'), Type.Literal('desc')]),
  limit: Type.Integer(),
  count: Type.Integer({ description: 'rows in this page' }),
  stoppedBy: StoppedBy,
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'null when stoppedBy is exhausted' }),
});

/**
 * The error envelope `{error, detail}` plus the fields some codes add. Open on purpose (marked
 * `x-error-envelope`, the contract test's one exception besides node records): a code may carry
 * context the caller needs to act on; the known ones are named here.
 */
export const ErrorEnvelope = Type.Object(
  {
    error: Type.String({ description: 'machine code (see components.schemas.ErrorCodes)' }),
    detail: Type.String({ description: 'human-readable explanation' }),
    candidates: Type.Optional(
      Type.Array(Type.Unknown(), { description: 'quote refusals: the admissible quote candidates' }),
    ),
    projection: Type.Optional(Type.String({ description: 'projection_unavailable: the projection' })),
    status: Type.Optional(
      Type.String({ description: 'projection_unavailable: building, stale or disabled' }),
    ),
    progress: Type.Optional(Nullable(Type.Number(), 'projection_unavailable: fraction built, 0..1')),
    reason: Type.Optional(Nullable(Type.String(), 'projection_unavailable: why it is not ready')),
    checkpoint: Type.Optional(Nullable(Type.Integer(), 'projection_unavailable: last block applied')),
    haltReason: Type.Optional(Type.String({ description: 'ingest_halted: why ingest halted' })),
    lagSeconds: Type.Optional(Type.Number({ description: 'replica_lagging: seconds behind the writer' })),
    lagBlocks: Type.Optional(Type.Integer({ description: 'replica_lagging: blocks behind the writer' })),
    state: Type.Optional(Type.String({ description: 'replica_lagging: the replica state' })),
    anchorBlock: Type.Optional(
      Type.Integer({
        description: "stale_cursor, walk_budget_exceeded, cursor_history_pruned: the cursor's anchor block",
      }),
    ),
    budgetRows: Type.Optional(
      Type.Integer({ description: 'walk_budget_exceeded: rows one request may examine in versioned walks' }),
    ),
    anchorHash: Type.Optional(Type.String({ description: "stale_cursor: the cursor's anchor hash" })),
    requestedBlock: Type.Optional(
      Type.Integer({
        description:
          'history_pruned, block_not_indexed, block_not_canonical: the block asked for (absent when an unknown hash was asked for)',
      }),
    ),
    oldestRetainedBlock: Type.Optional(
      Type.Integer({
        description: 'history_pruned, cursor_history_pruned: the oldest block an as-of read may name',
      }),
    ),
    headBlock: Type.Optional(
      Type.Integer({ description: 'block_not_indexed, history_pruned: the committed head when refused' }),
    ),
    suggestedRecencyFloorBlock: Type.Optional(Type.Integer({ description: 'screener candidate-set 503' })),
    candidatesScanned: Type.Optional(Type.Integer({ description: 'screener candidate-set 503' })),
    ceiling: Type.Optional(Type.Integer({ description: 'screener candidate-set 503' })),
    rankedAtBlock: Type.Optional(Type.Integer({ description: 'screener candidate-set 503' })),
  },
  {
    additionalProperties: true,
    'x-error-envelope': true,
    description: 'error envelope: {error, detail} plus the context fields of some codes',
  },
);

/** PAGE query parameters; `maxLimit` and `defaultLimit` per route. */
export function pageQuery(
  opts: { defaultLimit?: number; maxLimit?: number; orders?: Array<'asc' | 'desc'> } = {},
) {
  const orders = opts.orders ?? ['asc', 'desc'];
  return {
    cursor: Type.Optional(
      Type.String({ maxLength: 1024, description: 'opaque cursor from page.nextCursor' }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: opts.maxLimit ?? 1000, default: opts.defaultLimit ?? 100 }),
    ),
    order: Type.Optional(Type.Union(orders.map((o) => Type.Literal(o)))),
  };
}

/** A single-record response: `{anchor, data}`. */
export const Single = (data: TSchema) => Obj({ anchor: Anchor, data });
/** A paged response: `{anchor, data: [...], page}`. */
export const Paged = (row: TSchema, extra: Record<string, TSchema> = {}) =>
  Obj({ anchor: Anchor, data: Type.Array(row), page: PageInfo, ...extra });
/**
 * The envelope of a paged route whose rows are not described yet (listed in
 * src/server/contract.pending.json): anchor, data and page are promised; the rows and any further
 * top-level field are open until the route's domain reader lands (issue K). Never used by a route
 * off the pending list (the contract test fails on an open object there).
 */
export const OpenPaged = (extra: Record<string, TSchema> = {}) =>
  Type.Object(
    {
      anchor: Anchor,
      data: Type.Array(Type.Object({}, { additionalProperties: true })),
      page: PageInfo,
      ...extra,
    },
    { additionalProperties: true },
  );
/**
 * A chain record served as the node sent it (byte-exact canonical JSON). Open on purpose, and
 * marked `x-node-record` (the contract test accepts no other open object): chains add fields to
 * the standard records. `props` names the standard fields with their types.
 */
export const RawRecord = (description: string, props: TProperties = {}) =>
  Type.Object(props, { additionalProperties: true, description, 'x-node-record': true });

/** Optional quote currency (quote rule: named, or auto-resolved when exactly one exists). */
export const QuoteQuery = { quote: Type.Optional(Address) };
/** Candle frames: 1s and 30s exist only for pools with durable fine retention. */
export const Frame = Type.Union(
  ['1s', '30s', '1m', '1h', '1d'].map((f) => Type.Literal(f)),
  {
    description: 'bucket width',
  },
);
/** frame, from, to (unix seconds, inclusive, aligned down to the bucket width). */
export const FrameQuery = {
  frame: Frame,
  from: Type.Integer({ minimum: 0, description: 'unix seconds, inclusive' }),
  to: Type.Integer({ minimum: 0, description: 'unix seconds, inclusive' }),
};
/** V4 pool id: 0x-prefixed 32-byte hex. */
export const PoolId = patterned('^0x[0-9a-fA-F]{64}$', 'V4 pool id (32 bytes hex)');
/** Cohort id: 8 bytes as 16 hex digits, no 0x. */
export const CohortId = Type.String({ pattern: '^[0-9a-f]{16}$', description: 'cohort id, 16 hex digits' });
/** A decimal base-unit amount given as a query string. */
export const AmountQuery = patterned('^(0|[1-9][0-9]{0,77})$', 'non-negative integer, decimal string');
/** Stats windows. */
export const Window = Type.Union(['5m', '1h', '4h', '24h'].map((w) => Type.Literal(w)));
