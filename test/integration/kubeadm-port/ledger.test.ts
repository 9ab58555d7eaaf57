import { existsSync, readFileSync } from 'node:fs';
import { LEDGER, ledgerMarkdown } from './ledger.js';

const DOC = 'docs/kubeadm-test-port.md';
const START = '<!-- ledger:start (generated from test/integration/kubeadm-port/ledger.ts; checked by its test) -->';
const END = '<!-- ledger:end -->';

describe('kubeadm-port ledger', () => {
  test(`${DOC} reports the ledger's counts and reasons exactly`, () => {
    const doc = readFileSync(DOC, 'utf8');
    const start = doc.indexOf(START);
    const end = doc.indexOf(END);
    expect([start >= 0, end > start]).toEqual([true, true]);
    expect(doc.slice(start + START.length, end).trim()).toBe(ledgerMarkdown().trim());
  });

  test('every case that does not match says why, every port file exists, no case is listed twice', () => {
    for (const f of LEDGER) {
      expect([f.portFile, existsSync(f.portFile)]).toEqual([f.portFile, true]);
      for (const c of f.cases) if (c.outcome !== 'match') expect([c.test, c.name, (c.reason ?? '').length > 0]).toEqual([c.test, c.name, true]);
      const keys = f.cases.map((c) => `${c.test}/${c.name}`);
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  test('the table counts cases by outcome', () => {
    const one = [{ path: 'cmd/kubeadm/app/x_test.go', commit: '0123456789abcdef0123456789abcdef01234567', minor: '1.36' as const, portFile: 'p', cases: [
      { test: 'T', name: 'a', outcome: 'match' as const },
      { test: 'T', name: 'b', outcome: 'differs' as const, reason: 'r1' },
      { test: 'T', name: 'c', outcome: 'unmapped' as const, reason: 'r2' },
    ] }];
    const md = ledgerMarkdown(one);
    expect(md).toContain('| x_test.go | 01234567 | 1.36 | 3 | 2 | 1 | 1 | 1 |');
    expect(md).toContain('- **differs**: T "b": r1');
    expect(md).toContain('- not mapped: T "c": r2');
  });

  test('cases of one test with the same outcome and reason share one line', () => {
    const one = [{ path: 'cmd/kubeadm/app/x_test.go', commit: 'c', minor: '1.36' as const, portFile: 'p', cases: [
      { test: 'T', name: 'a', outcome: 'unmapped' as const, reason: 'r' },
      { test: 'T', name: 'b', outcome: 'unmapped' as const, reason: 'r' },
      { test: 'T', name: 'c', outcome: 'unmapped' as const, reason: 'other' },
    ] }];
    const md = ledgerMarkdown(one);
    expect(md).toContain('- not mapped: T "a", "b": r\n- not mapped: T "c": other');
  });
});
