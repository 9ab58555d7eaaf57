/**
 * The launcher's direct path for a plain `etcd snapshot save` (runPlainSave) ends as main() does:
 * same stderr, same exit code, same `-o json` events (the times aside). A save that succeeds
 * through both paths is checked on the built executable, against real etcd, in
 * test/unit/etcd-snapshot/save.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { plainSnapshotSave } from '../../../src/cli/plain-snapshot-save.js';
import { runPlainSave } from '../../../src/commands/etcd-snapshot-save.js';
import { runCli, type CliRun } from '../../helpers/run-cli.js';

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

async function direct(argv: string[]): Promise<CliRun> {
  const args = plainSnapshotSave(argv);
  if (!args) throw new Error(`${argv.join(' ')} is not a plain save`);
  const stdout = new Sink();
  const stderr = new Sink();
  const code = await runPlainSave(args, { stdout, stderr, stdin: process.stdin, env: process.env });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

const withoutTimes = (text: string): string => text.replace(/"ts":"[^"]+"/g, '"ts":"…"');

describe('runPlainSave', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'tsadm-plain-save-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test.each([[[]], [['-o', 'json']]])('with no client certificate (%j): the same error, exit code and events as main()', async (extra) => {
    const argv = ['etcd', 'snapshot', 'save', '/a.db', '--rootfs', root, '--endpoint', 'https://127.0.0.1:1', ...extra];
    const [viaMain, viaDirect] = [await runCli(argv), await direct(argv)];
    expect(viaDirect.code).toBe(viaMain.code);
    expect(viaMain.code).not.toBe(0);
    expect(viaDirect.stderr).toBe(viaMain.stderr);
    expect(viaMain.stderr).toMatch(/^error: .*etcd\/ca\.crt/);
    expect(withoutTimes(viaDirect.stdout)).toBe(withoutTimes(viaMain.stdout));
    if (extra.length > 0) expect(JSON.parse(viaDirect.stdout.trim().split('\n').pop() as string)).toMatchObject({ type: 'result', command: 'etcd snapshot save', ok: false });
  });
});
