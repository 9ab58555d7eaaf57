import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resolveRootfs } from '../../../src/host/rootfs.js';

describe('resolveRootfs', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tsadm-rootfs-'));
    writeFileSync(path.join(dir, 'file'), '');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('unset or empty is the real root', async () => {
    await expect(resolveRootfs(undefined)).resolves.toBe('/');
    await expect(resolveRootfs('')).resolves.toBe('/');
  });

  test('a directory is returned as an absolute path', async () => {
    const rel = path.relative(process.cwd(), dir);
    await expect(resolveRootfs(rel)).resolves.toBe(dir);
  });

  test('a missing path or a file is a usage error naming the flag', async () => {
    for (const bad of [path.join(dir, 'missing'), path.join(dir, 'file')]) {
      await expect(resolveRootfs(bad)).rejects.toMatchObject({ code: 'E_USAGE', message: `--rootfs ${bad}: not a directory` });
    }
  });
});
