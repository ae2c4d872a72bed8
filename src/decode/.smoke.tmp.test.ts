import { readFileSync } from 'node:fs';
import { test } from 'vitest';
import { decodeCalldata } from './calldata.js';
test('smoke', () => {
  const ct = JSON.parse(readFileSync('/work/shared/fixtures/ethereum/24298763/calltraces.json','utf8'));
  const t = ct.find((x: any) => x.txHash === '0xf082fb09f2998f146ac5e753629c6c9431d8ec70773c83b98766c1934b31c858');
  console.log(t.result.input.length, t.result.to, JSON.stringify(decodeCalldata(t.result.input, t.result.to), null, 1).slice(0, 3000));
  const s = JSON.parse(readFileSync('/work/shared/fixtures/ethereum/tx-traces/0x59299b761c52755ef6b88fb96c44e93f16c5608ff7ae105bf170cbd88e70879f.json','utf8'));
  console.log(JSON.stringify(decodeCalldata(s.input, s.to), null, 1), s.input);
});
