/**
 * Which e2e files run beside which (two at a time): the lock of test/e2e/heavy-files.ts and the
 * order of scripts/jest-sequencer.mjs. The lock is taken on a temp file here, never on the e2e
 * run's own (this project runs beside the e2e project).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { takeHeavyLock } from '../e2e/heavy-files.js';
// @ts-expect-error: plain JavaScript without types (jest loads it outside the TypeScript transform)
import { e2eGroup, orderE2e } from '../../scripts/jest-sequencer.mjs';

const group = e2eGroup as (source: string) => number;
const order = orderE2e as (tests: { path: string }[], read: (p: string) => string) => { path: string }[];
const E2E_DIR = path.join(process.cwd(), 'test', 'e2e');

describe('the e2e schedule', () => {
  test('ha runs alone among heavy files; upgrade, safety and join-reset may run together; the rest are light', () => {
    const groups = Object.fromEntries(readdirSync(E2E_DIR).filter((f) => f.endsWith('.e2e.test.ts')).map((f) => [f, group(readFileSync(path.join(E2E_DIR, f), 'utf8'))]));
    expect(Object.keys(groups).filter((f) => groups[f] === 0)).toEqual(['ha.e2e.test.ts']);
    expect(Object.keys(groups).filter((f) => groups[f] === 2).sort()).toEqual(['join-reset.e2e.test.ts', 'safety.e2e.test.ts', 'upgrade.e2e.test.ts']);
  });

  test('the sequencer puts the alone file first, the light ones next, the together ones last, each group in jest\'s order, other tests first', () => {
    const sources: Record<string, string> = {
      '/r/test/e2e/big.e2e.test.ts': "heavyFile('together');",
      '/r/test/e2e/small.e2e.test.ts': '',
      '/r/test/e2e/ha.e2e.test.ts': "heavyFile( 'alone');",
      '/r/test/e2e/other.e2e.test.ts': "// heavyFile('alone') is for ha only\nheavyFile('together');",
      '/r/test/e2e/tiny.e2e.test.ts': '',
      '/r/test/unit/a.test.ts': "heavyFile('alone')",
    };
    const jestOrder = ['/r/test/e2e/big.e2e.test.ts', '/r/test/e2e/small.e2e.test.ts', '/r/test/unit/a.test.ts', '/r/test/e2e/ha.e2e.test.ts', '/r/test/e2e/other.e2e.test.ts', '/r/test/e2e/tiny.e2e.test.ts'];
    expect(order(jestOrder.map((p) => ({ path: p })), (p) => sources[p]!).map((t) => path.basename(t.path))).toEqual([
      'a.test.ts', 'ha.e2e.test.ts', 'small.e2e.test.ts', 'tiny.e2e.test.ts', 'big.e2e.test.ts', 'other.e2e.test.ts',
    ]);
  });

  describe('the heavy-file lock', () => {
    let dir: string;
    let lockFile: string;
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'tsadm-heavy-lock-'));
      lockFile = path.join(dir, 'heavy.lock');
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    test('two together files hold it at once', async () => {
      const a = await takeHeavyLock('together', { lockFile, timeoutMs: 5000 });
      const b = await takeHeavyLock('together', { lockFile, timeoutMs: 5000 });
      await a();
      await b();
    });

    test('an alone file waits for the together files, and a together file for the alone one', async () => {
      const together = await takeHeavyLock('together', { lockFile, timeoutMs: 5000 });
      await expect(takeHeavyLock('alone', { lockFile, timeoutMs: 1000 })).rejects.toThrow(/could not take the alone heavy-file lock/);
      const waiting = takeHeavyLock('alone', { lockFile, timeoutMs: 10_000 });
      await together();
      const alone = await waiting;
      await expect(takeHeavyLock('together', { lockFile, timeoutMs: 1000 })).rejects.toThrow(/could not take the together heavy-file lock/);
      await alone();
      await (await takeHeavyLock('together', { lockFile, timeoutMs: 5000 }))();
    });

    test('the lock goes with the process that holds it', async () => {
      const { execa } = await import('execa');
      // A child takes it through the same helper and dies without releasing it.
      const script = `import { takeHeavyLock } from ${JSON.stringify(path.join(process.cwd(), 'test/e2e/heavy-files.ts'))}; await takeHeavyLock('alone', { lockFile: ${JSON.stringify(lockFile)} }); console.log('held'); process.kill(process.pid, 'SIGKILL');`;
      const child = await execa(process.execPath, ['--experimental-strip-types', '--input-type=module', '-e', script], { reject: false });
      expect(child.stdout).toContain('held');
      await (await takeHeavyLock('together', { lockFile, timeoutMs: 5000 }))();
    });
  });
});
