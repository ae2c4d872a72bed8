/**
 * Launchpad launches: `LaunchCreated` registers the launched token (creation via the launchpad)
 * and its launch row; `GraduationStarted` and `Graduated` move its state. Only registered
 * deployments (LAUNCHPADS_FILE or the devnet's pad) are followed. One history row per token per
 * block that changed it (LAUNCH_HIST), a `launch_<state>` frame and, for a new launch, a
 * `creation` frame naming the factory that emitted LaunchCreated.
 */
import type { EventDelta } from '../../schema/delta.js';
import type { LaunchRow, TokenRow } from '../../schema/rows/tokens.js';
import { LAUNCH_HIST, LAUNCH_LAST, PAD_LAUNCH } from '../../schema/tables/tokens.js';
import { LAUNCHPADS, type LaunchpadDeployments, normaliseUri } from '../launchpads.js';
import { launchJson } from '../render.js';
import { coordOf, type TokensBlock } from './block.js';
import { register } from './registry.js';

type Hex = `0x${string}`;

/** Launch state of one block: the rows changed so far, by token. */
export type Launches = Map<string, LaunchRow>;

/** Emitter (factory) address → launchpad index, for the registered deployments. */
export function padIndexByFactory(deployments: LaunchpadDeployments): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, d] of deployments) {
    const idx = LAUNCHPADS.find((l) => l.name === name)!.index;
    for (const f of d.factories) out.set(f, idx);
  }
  return out;
}

/** Tokens launched in this block, with their LaunchCreated log (creation provenance of their mints). */
export function launchedIn(b: TokensBlock, pads: Map<string, number>): Map<string, EventDelta> {
  const out = new Map<string, EventDelta>();
  for (const e of b.d.events)
    if (e.standard === 'launchpad' && e.event === 'LaunchCreated' && pads.has(e.address))
      out.set(String(e.args.token), e);
  return out;
}

/** Creation provenance of a token launched in this block (null when it was not). */
export function launchCreation(
  b: TokensBlock,
  launched: Map<string, EventDelta>,
  token: string,
): TokenRow['creation'] {
  const e = launched.get(token);
  return e
    ? {
        ...coordOf(b, e.txIndex, null),
        deployer: String(e.args.creator),
        via: 'launchpad',
        factory: e.address,
      }
    : null;
}

/** The launch row of `token` as of this block (this block's pending changes first). */
function launchOf(b: TokensBlock, launches: Launches, token: string): LaunchRow | undefined {
  const have = launches.get(token);
  if (have) return have;
  // A point read (LAUNCH_LAST), never a walk: a pending or in-flight write of an earlier block is seen.
  const last = b.batch.get(LAUNCH_LAST, token as Hex);
  const found = last === undefined ? undefined : b.batch.get(LAUNCH_HIST, token as Hex, last);
  if (found) launches.set(token, found);
  return found;
}

/** Applies one launchpad event (a registered pad's LaunchCreated, GraduationStarted or Graduated). */
export function onLaunchEvent(b: TokensBlock, e: EventDelta, pad: number, launches: Launches): void {
  const at = coordOf(b, e.txIndex, e.logIndex);
  const token = String(e.args.token);
  if (e.event === 'LaunchCreated') {
    const meta = normaliseUri(String(e.args.metadataUri ?? ''));
    const img = normaliseUri(String(e.args.imageUri ?? ''));
    const row: LaunchRow = {
      launchpad: LAUNCHPADS[pad].name,
      token,
      creator: String(e.args.creator),
      launchSequence: String(e.args.launchSequence),
      state: 'new',
      name: String(e.args.name ?? ''),
      symbol: String(e.args.symbol ?? ''),
      metadataUri: meta.uri,
      metadataUriReason: meta.reason,
      imageUri: img.uri,
      imageUriReason: img.reason,
      imageProvenance: { source: 'launch_event', scheme: img.scheme, raw: String(e.args.imageUri ?? '') },
      created: at,
      graduationStarted: null,
      graduated: null,
    };
    launches.set(token, row);
    b.batch.put(PAD_LAUNCH, [pad, b.d.number, e.logIndex], token as Hex);
    // The creation frame names the factory that emitted LaunchCreated, and is sent even when the
    // launch graduates within its own block.
    b.emit?.({
      topic: 'creations',
      event: 'creation',
      json: JSON.stringify({
        address: token,
        creator: row.creator,
        via: 'launchpad',
        factory: e.address,
        ...at,
      }),
      keys: { contracts: [token], wallets: [row.creator] },
    });
    register(b, token, at, 'launch_event', {
      ...at,
      logIndex: null,
      deployer: row.creator,
      via: 'launchpad',
      factory: e.address,
    });
    return;
  }
  const l = launchOf(b, launches, token);
  if (!l) return;
  if (e.event === 'GraduationStarted') {
    l.state = 'graduating';
    l.graduationStarted = at;
  } else if (e.event === 'Graduated') {
    l.state = 'graduated';
    l.graduated = { ...at, pool: String(e.args.pool) };
  }
}

/** Writes this block's launch rows and their frames. */
export function flushLaunches(b: TokensBlock, launches: Launches): void {
  for (const [token, l] of launches) {
    b.batch.put(LAUNCH_HIST, [token as Hex, b.d.number], l);
    b.batch.put(LAUNCH_LAST, [token as Hex], b.d.number);
    b.emit?.({
      topic: 'launches',
      event: `launch_${l.state}`,
      json: JSON.stringify(launchJson(l)),
      keys: { tokens: [token], launchpads: [l.launchpad] },
    });
  }
}
