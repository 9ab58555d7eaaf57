/**
 * The rooted host's guards, in process: what a hostile machine state can and cannot make tsadm
 * do (src/host/safe-fs.ts, src/host/atomic-write.ts, src/host/rooted-host.ts). The same holes
 * through the CLI are cases of the hostile corpus.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { writeFileAtomic, writeStreamAtomic } from '../../../src/host/atomic-write.js';
import { scratchRootEachTest } from '../../helpers/scratch-root.js';

const scratch = scratchRootEachTest('tsadm-safefs-');

describe('atomic writes', () => {
  test('a stream of many small chunks of odd sizes arrives whole and in order (batches larger than one writev takes)', async () => {
    // 3 000 chunks of 1–1 499 bytes: a 1 MiB batch holds more buffers than IOV_MAX (1024), so
    // writev writes part of it and the rest follows.
    const chunks = Array.from({ length: 3000 }, (_, i) => Buffer.alloc(1 + ((i * 7919) % 1499), i % 251));
    mkdirSync(path.join(scratch.root, 'var/lib'), { recursive: true });
    const target = path.join(scratch.root, 'var/lib/stream.db');
    const size = await writeStreamAtomic(target, Readable.from(chunks), 0o600);
    const want = Buffer.concat(chunks);
    expect(size).toBe(want.length);
    expect(readFileSync(target).equals(want)).toBe(true);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readdirSync(path.dirname(target))).toEqual(['stream.db']);
  });

  test('temp files of dead writers are removed by the next write of the target; a live writer\'s stay', async () => {
    const dir = path.join(scratch.root, 'etc/kubernetes');
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const dead = path.join(dir, `.admin.conf.tsadm-${2 ** 22 + 1}-0123456789ab`);
      const live = path.join(dir, `.admin.conf.tsadm-${child.pid}-0123456789ab`);
      const other = path.join(dir, `.kubelet.conf.tsadm-${2 ** 22 + 1}-0123456789ab`);
      for (const f of [dead, live, other]) writeFileSync(f, 'partial', { mode: 0o600 });
      await writeFileAtomic(path.join(dir, 'admin.conf'), 'whole', 0o600);
      expect(readdirSync(dir).sort()).toEqual([path.basename(live), path.basename(other), 'admin.conf'].sort());
      expect(statSync(path.join(dir, 'admin.conf')).mode & 0o777).toBe(0o600);
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('the umask neither loosens nor tightens the mode', async () => {
    const old = process.umask(0o077);
    try {
      await writeFileAtomic(path.join(scratch.root, 'etc/kubernetes/x.crt'), 'c', 0o644);
      expect(statSync(path.join(scratch.root, 'etc/kubernetes/x.crt')).mode & 0o777).toBe(0o644);
    } finally {
      process.umask(old);
    }
  });
});
