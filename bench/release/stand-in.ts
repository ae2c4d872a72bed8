/**
 * Release bench, section 4b: the stand-in on the same data and node — what node:http costs against
 * the native core (bench/stand-in.ts). Only when the run has a native core.
 */
import { log, onCleanup, rpc, startIndexerChild, waitAnchor } from '../lib.js';
import { standInRows } from '../stand-in.js';
import type { FanoutResult } from '../streams.js';
import type { Ceiling } from './ceiling.js';
import type { Chain } from './chain.js';
import { CHAIN, type Release } from './context.js';
import type { pointReader, pointReadsSection } from './point-reads.js';

export async function standInSection(
  r: Release,
  { node }: Chain,
  hello: Pick<Ceiling, 'native'>,
  o: {
    dataDir: string;
    streamKeysFile: string;
    streamKeys: string[];
    pointRoutes: Awaited<ReturnType<typeof pointReadsSection>>['pointRoutes'];
    nativePoint: ReturnType<typeof pointReader>['nativePoint'];
    nativeFan: { one: FanoutResult; many: FanoutResult };
  },
) {
  const { P, ixEnv, hardFailures, fig } = r;
  const { streamKeysFile, streamKeys, pointRoutes, nativePoint } = o;
  if (hello.native) {
    log('stand-in: point reads and streams on HTTP_CORE=node_http');
    const ixS = await startIndexerChild({
      rpcUrl: node.rpcUrl,
      chain: CHAIN,
      dataDir: o.dataDir,
      env: { ...ixEnv, POLL_MS: '50', KEYS_FILE: streamKeysFile, HTTP_CORE: 'node_http' },
    });
    onCleanup(() => ixS.stop());
    await waitAnchor(ixS, Number.parseInt(await rpc<string>(node.rpcUrl, 'eth_blockNumber'), 16), 60_000);
    hardFailures.push(
      ...(await standInRows({
        ix: ixS,
        rpcUrl: node.rpcUrl,
        routes: pointRoutes,
        native: nativePoint,
        nativeFan: o.nativeFan,
        keys: streamKeys,
        subscribers: P.subscribers,
        blocks: P.streamBlocks,
        preciseN: P.preciseN,
        durationS: P.dur,
        fig,
      })),
    );
    await ixS.stop();
  }
}
