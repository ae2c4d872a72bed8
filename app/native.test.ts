import { describe, expect, it } from 'vitest';
import { checkNativeModules, nativeFailureMessage, REQUIRED_NATIVE_MODULES } from './native.js';

describe('native modules at start-up', () => {
  it('the real loader loads every required native module on this machine', () => {
    expect(checkNativeModules()).toEqual([]);
  });

  it('a binary that does not load gives one error line naming the module, the reason and the fix', () => {
    const reason =
      'No native build was found for platform=linux arch=x64 runtime=node abi=137 uv=1 libc=glibc node=24.21.0';
    const load = (id: string) => {
      if (id === '@nxtedition/rocksdb/binding.js') throw new Error(`${reason}\n    loaded from: /x\n`);
      return {};
    };
    const failed = checkNativeModules(load);
    expect(failed).toEqual([{ name: '@nxtedition/rocksdb', reason, fix: REQUIRED_NATIVE_MODULES[0].fix }]);
    const line = nativeFailureMessage(failed[0]);
    expect(line).not.toContain('\n');
    expect(line).toMatch(/^native module @nxtedition\/rocksdb did not load on Node v\d+/);
    expect(line).toContain(reason);
    expect(line).toContain('npm rebuild @nxtedition/rocksdb');
    expect(line).toContain('allowScripts');
  });
});
