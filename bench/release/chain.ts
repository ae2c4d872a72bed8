/** Release bench, section 1: the seeded chain on a fresh anvil (bench/chain.ts), or the anvil state cache. */
import { buildChain } from '../chain.js';
import { log, onCleanup, rpc } from '../lib.js';
import type { Release } from './context.js';

export async function chainSection(r: Release) {
  const { args, P, quick, notes, fig } = r;
  log(`chain: seed ${args.seed}, ${P.blocks} blocks (${quick ? 'quick' : 'full'})`);
  const { node, info } = await buildChain(
    { seed: args.seed, blocks: P.blocks, denseEvery: P.denseEvery },
    { useCache: args.cache && P.blocks <= 5_000 },
  );
  onCleanup(() => node.stop());
  if (info.source === 'generated')
    notes.push(
      'the chain was generated fresh in this run: an anvil restarted with --load-state keeps blocks and receipts but not historical state, which the indexer reads (eth_getCode / eth_call at past blocks), so the state cache is off by default (--cache tries it and falls back when it cannot answer)',
    );
  const chainId = await rpc<string>(node.rpcUrl, 'eth_chainId');
  const head = info.head;
  fig({
    id: 'chain.generation',
    group: 'Chain',
    label: `generation of ${head} blocks / ${info.logCount} logs (${info.source})`,
    value: info.generationSeconds,
    unit: 's',
    status: 'info',
  });
  return { node, info, chainId, head };
}
export type Chain = Awaited<ReturnType<typeof chainSection>>;
