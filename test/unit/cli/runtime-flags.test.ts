import { runtimeFlagValues } from '../../../src/cli/runtime-flags.js';
import { TsadmError } from '../../../src/errors.js';

describe('runtimeFlagValues', () => {
  test('carries --dry-run, --rootfs, -v, -o and the plan flags as createRuntime takes them', () => {
    expect(runtimeFlagValues({ 'dry-run': true, rootfs: '/mnt/host', v: 3, output: 'json', plan: '/tmp/p.json', 'plan-without-keys': true, other: 'x' }, { output: true }))
      .toEqual({ 'dry-run': true, rootfs: '/mnt/host', v: 3, output: 'json', plan: '/tmp/p.json', 'plan-without-keys': true });
  });

  test('a flag the command does not define (absent from argv) is absent, and false flags are left out', () => {
    expect(runtimeFlagValues({ 'dry-run': false, 'plan-without-keys': false }, { output: true })).toEqual({});
  });

  test('output: false leaves a print format such as check-expiration\'s -o table out of the runtime', () => {
    expect(runtimeFlagValues({ output: 'table', v: 0 }, { output: false })).toEqual({ v: 0 });
  });

  test('a --rootfs that is not a path is a usage error', () => {
    expect(() => runtimeFlagValues({ rootfs: true }, { output: true })).toThrow(TsadmError);
    expect(() => runtimeFlagValues({ rootfs: ['/a', '/b'] }, { output: true })).toThrow('--rootfs takes a path');
  });
});
