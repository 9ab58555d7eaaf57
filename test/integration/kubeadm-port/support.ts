/**
 * Shared by the kubeadm-port tests: registers the ledger's 'match' cases of one kubeadm source
 * file as jest tests named `<file> <Test>/"<case>"`, and fails when the port file and the ledger
 * disagree on which cases match (so the counts in docs/kubeadm-test-port.md are those run).
 */
import path from 'node:path';
import { LEDGER, type LedgerFile } from './ledger.js';

export type CaseBodies = Readonly<Record<string, () => void>>;

export const caseKey = (test: string, name: string): string => `${test}/"${name}"`;

export function ledgerFile(sourcePath: string): LedgerFile {
  const file = LEDGER.find((f) => f.path === sourcePath);
  if (!file) throw new Error(`${sourcePath} is not in the kubeadm-port ledger`);
  return file;
}

export function portCases(sourcePath: string, bodies: CaseBodies): void {
  const file = ledgerFile(sourcePath);
  const base = path.posix.basename(file.path);
  const matched = file.cases.filter((c) => c.outcome === 'match').map((c) => caseKey(c.test, c.name));
  test(`${base}: the cases run here are exactly the ledger's matches`, () => {
    expect(Object.keys(bodies).sort()).toEqual([...matched].sort());
  });
  for (const key of matched) {
    const body = bodies[key];
    if (body) test(`${base} ${key}`, body);
  }
}

/** kubeadm's command tests compare sort.Strings of both lists. */
export const goSorted = (args: readonly string[]): string[] => [...args].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
