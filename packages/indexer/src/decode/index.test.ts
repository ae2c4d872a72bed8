/** The public export list of the decode subsystem: changing it is an API change. */
import { expect, it } from 'vitest';
import * as decode from './index.js';

it('exports exactly the documented runtime API', () => {
  expect(Object.keys(decode).sort()).toEqual([
    'CALL_DECODER_PRIORITY',
    'DecodeError',
    'MAX_MULTICALL_DEPTH',
    'NO_VERIFIED_ABIS',
    'TOPIC0',
    'compileVerifiedAbis',
    'createCalldataDecoder',
    'createDecoders',
    'createLogDecoder',
    'decodeCalldata',
    'decodeLog',
    'loadVerifiedAbis',
  ]);
  const d = decode.createDecoders();
  expect(d.decodeCalldata('0x', '0x0000000000000000000000000000000000000001')).toMatchObject({
    reason: 'empty_calldata',
  });
  expect(
    d.decodeLog({ address: '0x0000000000000000000000000000000000000001', topics: [], data: '0x' }),
  ).toMatchObject({
    reason: 'anonymous_or_no_topics',
  });
});
