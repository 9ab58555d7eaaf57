import { EventEmitter } from 'node:events';
import { quietIpServerNameWarning } from '../../../src/log/node-warnings.js';

/** A stand-in process whose emitWarning records what would have been printed. */
function fakeProcess() {
  const printed: unknown[][] = [];
  const proc = Object.assign(new EventEmitter(), { emitWarning: (...args: unknown[]) => { printed.push(args); } }) as unknown as NodeJS.Process;
  return { proc, printed };
}

describe('quietIpServerNameWarning', () => {
  test('drops DEP0123 in each form emitWarning takes, and nothing else', () => {
    const { proc, printed } = fakeProcess();
    quietIpServerNameWarning(proc);
    const msg = 'Setting the TLS ServerName to an IP address is not permitted by RFC 6066. This will be ignored in a future version.';
    proc.emitWarning(msg, 'DeprecationWarning', 'DEP0123');
    proc.emitWarning(msg, { type: 'DeprecationWarning', code: 'DEP0123' });
    proc.emitWarning(Object.assign(new Error(msg), { name: 'DeprecationWarning', code: 'DEP0123' }));
    expect(printed).toEqual([]);
    proc.emitWarning('Buffer() is deprecated', 'DeprecationWarning', 'DEP0005');
    proc.emitWarning('something else', { code: 'DEP0999' });
    proc.emitWarning('plain');
    expect(printed.map((a) => a[0])).toEqual(['Buffer() is deprecated', 'something else', 'plain']);
  });
  // That the real executable prints no DEP0123 while it streams from an IP endpoint:
  // test/unit/etcd-snapshot/save.test.ts (jest's sandboxed `process` is not the one Node's TLS warns through).
});
