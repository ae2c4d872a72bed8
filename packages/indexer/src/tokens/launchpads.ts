/**
 * The registered launchpad table (29 entries in this build), addressed by canonical name.
 * Deployments are per chain: the devnet registers the project's own launchpad; other chains
 * register theirs through LAUNCHPADS_FILE (`{"<name>": {"<chain>": {factories:[…], curve, graduationTargetWei}}}`).
 * A launchpad with no deployment on the served chain is listed with `deployments: []` and a reason.
 */
import { readFileSync } from 'node:fs';

/** One deployment of a launchpad on a chain. */
export interface LaunchpadDeployment {
  /** Contracts that emit launch events (factories), lowercase. */
  factories: string[];
  /** Shared bonding-curve / portal address where curve trades execute, lowercase. */
  curve: string;
  /** Native-currency reserve that triggers graduation, wei as a decimal string. */
  graduationTargetWei: string | null;
}

export interface Launchpad {
  name: string;
  displayName: string;
  /** Position in the table; stable, used in storage keys. */
  index: number;
}

const NAMES: Array<[string, string]> = [
  ['devnet-pad', 'Devnet bonding-curve launchpad (this project)'],
  ['four-meme', 'four.meme'],
  ['clanker', 'Clanker'],
  ['zora', 'Zora'],
  ['virtuals', 'Virtuals Protocol'],
  ['wow', 'WOW'],
  ['ape-store', 'Ape Store'],
  ['flaunch', 'Flaunch'],
  ['doppler', 'Doppler'],
  ['bankr', 'Bankr'],
  ['moonshot', 'Moonshot'],
  ['gra-fun', 'gra.fun'],
  ['pump-tires', 'pump.tires'],
  ['ethervista', 'EtherVista'],
  ['uncx', 'UNCX'],
  ['pinksale', 'PinkSale'],
  ['dxsale', 'DxSale'],
  ['gempad', 'GemPad'],
  ['unicrypt', 'Unicrypt'],
  ['team-finance', 'Team Finance'],
  ['fjord', 'Fjord Foundry'],
  ['bounce', 'Bounce'],
  ['sushi-miso', 'Sushi MISO'],
  ['polkastarter', 'Polkastarter'],
  ['daomaker', 'DAO Maker'],
  ['seedify', 'Seedify'],
  ['coinlist', 'CoinList'],
  ['apeterminal', 'Ape Terminal'],
  ['base-pump', 'Base Pump'],
];

export const LAUNCHPADS: Launchpad[] = NAMES.map(([name, displayName], index) => ({
  name,
  displayName,
  index,
}));

/** Deployments of each launchpad on the served chain, by name. */
export type LaunchpadDeployments = Map<string, LaunchpadDeployment>;

/** Loads deployments for `chain` from a LAUNCHPADS_FILE. @throws Error naming an unknown launchpad. */
export function loadLaunchpadsFile(path: string, chain: string): LaunchpadDeployments {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, LaunchpadDeployment>>;
  const out: LaunchpadDeployments = new Map();
  for (const [name, byChain] of Object.entries(doc)) {
    if (!LAUNCHPADS.some((l) => l.name === name))
      throw new Error(`LAUNCHPADS_FILE: unknown launchpad "${name}"`);
    const d = byChain[chain];
    if (d)
      out.set(name, {
        factories: d.factories.map((f) => f.toLowerCase()),
        curve: d.curve.toLowerCase(),
        graduationTargetWei: d.graduationTargetWei ?? null,
      });
  }
  return out;
}

/** Normalised URI and where an image URI came from. */
export interface NormalisedUri {
  uri: string | null;
  /** ipfs, arweave, https, http, data, other; null when absent. */
  scheme: string | null;
  reason: 'absent' | 'unparseable' | null;
}

const IPFS_GATEWAY = /^https?:\/\/[^/]+\/ipfs\/(.+)$/i;

/**
 * Normalises a launch URI: trims; `ipfs://ipfs/<cid>` and `https://<gateway>/ipfs/<cid>` become
 * `ipfs://<cid>`; `ar://<id>` stays; http(s) hosts are lowercased; anything else is kept verbatim
 * with scheme `other`. Empty → null with reason `absent`.
 */
export function normaliseUri(raw: string): NormalisedUri {
  const s = raw.trim();
  if (!s) return { uri: null, scheme: null, reason: 'absent' };
  if (/^ipfs:\/\//i.test(s))
    return { uri: `ipfs://${s.slice(7).replace(/^ipfs\//i, '')}`, scheme: 'ipfs', reason: null };
  const g = IPFS_GATEWAY.exec(s);
  if (g) return { uri: `ipfs://${g[1]}`, scheme: 'ipfs', reason: null };
  if (/^ar:\/\//i.test(s)) return { uri: `ar://${s.slice(5)}`, scheme: 'arweave', reason: null };
  if (/^data:/i.test(s)) return { uri: s, scheme: 'data', reason: null };
  try {
    const u = new URL(s);
    if (u.protocol === 'https:' || u.protocol === 'http:')
      return { uri: u.toString(), scheme: u.protocol.slice(0, -1), reason: null };
    return { uri: s, scheme: 'other', reason: null };
  } catch {
    return { uri: s, scheme: null, reason: 'unparseable' };
  }
}
