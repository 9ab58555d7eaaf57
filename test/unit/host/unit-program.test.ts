/**
 * What a root-run systemd unit of tsadm's may run (src/host/unit-program.ts), on real files: temp
 * trees standing in for a machine (--rootfs) with owners and modes set by chown/chmod (the tests
 * run as root), and the real machine's own /usr/bin/true and /tmp. The oracle is the file system:
 * lstat's uid and mode of the very path the test made unsafe, named in the refusal.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UNIT_PROGRAM_HINT, unitProgram, type RunningTsadm } from '../../../src/host/unit-program.js';
import { tsadmErrorOf } from '../../helpers/tsadm-error.js';

const NOBODY = 65534;
const UNIT = '/etc/systemd/system/x.service';
const SEA: RunningTsadm = { execPath: '/usr/bin/tsadm' };
const SCRIPT: RunningTsadm = { execPath: '/opt/node/bin/node', script: '/opt/tsadm/bin/tsadm' };

let root: string;
const at = (p: string): string => path.join(root, p);
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'tsadm-unit-program-'));
  chmodSync(root, 0o755);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A file (parents 0755, root-owned as the test runs as root). */
function file(p: string, content = '\x7fELF stand-in', mode = 0o755): void {
  mkdirSync(path.dirname(at(p)), { recursive: true, mode: 0o755 });
  writeFileSync(at(p), content);
  chmodSync(at(p), mode);
}

/** A checkout as bin/tsadm loads it: the launcher, its bundles in ../dist, package.json; and a Node.js. */
function checkout(): void {
  file('/opt/tsadm/bin/tsadm', '#!/usr/bin/env node\nimport("../dist/fast.mjs");\n');
  file('/opt/tsadm/dist/fast.mjs', 'export {};', 0o644);
  file('/opt/tsadm/dist/tsadm.mjs', 'export {};', 0o644);
  file('/opt/tsadm/dist/chunk-ABC.mjs', 'export {};', 0o644);
  file('/opt/tsadm/dist/tsadm.mjs.map', '{}', 0o644);
  file('/opt/tsadm/package.json', '{"type":"module"}', 0o644);
  file('/opt/node/bin/node');
}

const check = (o: { tsadmPath?: string; running?: RunningTsadm }) => unitProgram({ root }, { unit: UNIT, running: SEA, ...o });

async function refusal(o: { tsadmPath?: string; running?: RunningTsadm }) {
  const err = await tsadmErrorOf(check(o));
  expect(err.message).not.toContain('\n');
  return err;
}

describe('the single executable (the Debian package\'s /usr/bin/tsadm)', () => {
  test('root-owned in root-owned 0755 directories: runs alone; every directory up to / was checked', async () => {
    file('/usr/bin/tsadm');
    const p = await check({});
    expect(p.argv).toEqual(['/usr/bin/tsadm']);
    expect(p.checked).toEqual(['/', '/usr', '/usr/bin', '/usr/bin/tsadm']);
  });

  test('a file owned by another user is refused, naming it, its owner and the fix', async () => {
    file('/usr/bin/tsadm');
    chownSync(at('/usr/bin/tsadm'), NOBODY, NOBODY);
    const err = await refusal({});
    expect(err.code).toBe('E_PRECONDITION');
    expect(err.message).toBe(`refusing to write ${UNIT}: it would run /usr/bin/tsadm as root, and /usr/bin/tsadm is owned by uid 65534, not root (under --rootfs ${root})`);
    expect(err.hint).toBe(UNIT_PROGRAM_HINT);
    expect(err.hint).toBe('install the package (/usr/bin/tsadm) or pass --tsadm-path with a root-owned copy');
  });

  test.each([
    ['0777', 0o777, 'is writable by others (mode 0777)'],
    ['1777 (sticky, as /tmp)', 0o1777, 'is writable by others (mode 1777)'],
    ['0775', 0o775, 'is writable by its group (mode 0775)'],
  ])('a directory above it with mode %s is refused', async (_label, mode, reason) => {
    file('/usr/bin/tsadm');
    chmodSync(at('/usr'), mode);
    expect((await refusal({})).message).toContain(`and /usr ${reason}`);
  });

  test('a directory above it owned by another user is refused, though the file is root\'s', async () => {
    file('/usr/bin/tsadm');
    chownSync(at('/usr/bin'), NOBODY, 0);
    expect((await refusal({})).message).toContain('and /usr/bin is owned by uid 65534, not root');
  });

  test('a group- or world-writable file is refused', async () => {
    file('/usr/bin/tsadm', 'x', 0o775);
    expect((await refusal({})).message).toContain('and /usr/bin/tsadm is writable by its group (mode 0775)');
    chmodSync(at('/usr/bin/tsadm'), 0o757);
    expect((await refusal({})).message).toContain('and /usr/bin/tsadm is writable by others (mode 0757)');
  });

  test('the root of the tree itself counts ("/" of the target machine)', async () => {
    file('/usr/bin/tsadm');
    chmodSync(root, 0o777);
    expect((await refusal({})).message).toContain('and / is writable by others (mode 0777)');
  });

  test('missing, or a directory: refused', async () => {
    expect((await refusal({})).message).toContain('and /usr does not exist');
    mkdirSync(at('/usr/bin/tsadm'), { recursive: true });
    expect((await refusal({})).message).toContain('and /usr/bin/tsadm is not a regular file');
  });
});

describe('symbolic links: the link\'s directory and the whole chain of its target', () => {
  test('a link into a root-owned tree passes; ExecStart names the link; the target chain was checked', async () => {
    file('/opt/tsadm-1.0/tsadm');
    mkdirSync(at('/usr/bin'), { recursive: true });
    // Absolute: resolved inside the tree, as on the target machine (the real /opt has no tsadm-1.0).
    symlinkSync('/opt/tsadm-1.0/tsadm', at('/usr/bin/tsadm'));
    const p = await check({});
    expect(p.argv).toEqual(['/usr/bin/tsadm']);
    expect(p.checked).toEqual(['/', '/usr', '/usr/bin', '/opt', '/opt/tsadm-1.0', '/opt/tsadm-1.0/tsadm']);
  });

  test('a link into a user\'s directory is refused, naming that directory', async () => {
    file('/home/user/tsadm/tsadm');
    chownSync(at('/home/user'), NOBODY, NOBODY);
    mkdirSync(at('/usr/bin'), { recursive: true });
    symlinkSync('../../home/user/tsadm/tsadm', at('/usr/bin/tsadm'));
    expect((await refusal({})).message).toContain('it would run /usr/bin/tsadm as root, and /home/user is owned by uid 65534, not root');
  });

  test('a link through a 1777 directory (as /tmp) is refused', async () => {
    file('/tmp/x/tsadm');
    chmodSync(at('/tmp'), 0o1777);
    mkdirSync(at('/usr/bin'), { recursive: true });
    symlinkSync('/tmp/x/tsadm', at('/usr/bin/tsadm'));
    expect((await refusal({})).message).toContain('and /tmp is writable by others (mode 1777)');
  });

  test('a link in a directory a user may write is refused though its target is safe: the link can be swapped', async () => {
    file('/opt/tsadm-1.0/tsadm');
    mkdirSync(at('/usr/local/bin'), { recursive: true });
    chmodSync(at('/usr/local/bin'), 0o777);
    symlinkSync('/opt/tsadm-1.0/tsadm', at('/usr/local/bin/tsadm'));
    expect((await refusal({ tsadmPath: '/usr/local/bin/tsadm' })).message).toContain('and /usr/local/bin is writable by others (mode 0777)');
  });

  test('a link loop is refused', async () => {
    mkdirSync(at('/usr/bin'), { recursive: true });
    symlinkSync('/usr/bin/b', at('/usr/bin/tsadm'));
    symlinkSync('/usr/bin/tsadm', at('/usr/bin/b'));
    expect((await refusal({})).message).toContain('/usr/bin/tsadm has too many levels of symbolic links');
  });
});

describe('a script (bin/tsadm of a checkout) run by Node.js', () => {
  test('root-owned: ExecStart names the Node.js binary and the script; the bundles, dist/ and package.json were checked, not the source map', async () => {
    checkout();
    const p = await check({ running: SCRIPT });
    expect(p.argv).toEqual(['/opt/node/bin/node', '/opt/tsadm/bin/tsadm']);
    expect(p.checked).toEqual(expect.arrayContaining([
      '/opt/node/bin/node', '/opt/tsadm/bin/tsadm', '/opt/tsadm/dist', '/opt/tsadm/dist/chunk-ABC.mjs', '/opt/tsadm/dist/fast.mjs',
      '/opt/tsadm/dist/tsadm.mjs', '/opt/tsadm/package.json',
    ]));
    expect(p.checked).not.toContain('/opt/tsadm/dist/tsadm.mjs.map');
  });

  test.each([
    ['/opt/tsadm/dist/chunk-ABC.mjs', 'owner'],
    ['/opt/tsadm/dist', 'mode'],
    ['/opt/tsadm/package.json', 'owner'],
    ['/opt/node/bin/node', 'owner'],
    ['/opt/tsadm/bin', 'mode'],
  ])('%s (%s) made unsafe: refused, naming it', async (unsafe, how) => {
    checkout();
    if (how === 'owner') chownSync(at(unsafe), NOBODY, NOBODY);
    else chmodSync(at(unsafe), 0o777);
    const err = await refusal({ running: SCRIPT });
    expect(err.code).toBe('E_PRECONDITION');
    expect(err.message).toContain(`, and ${unsafe} ${how === 'owner' ? 'is owned by uid 65534, not root' : 'is writable by others (mode 0777)'}`);
  });
});

describe('--tsadm-path', () => {
  test('picks the program, whatever runs', async () => {
    file('/usr/local/sbin/tsadm');
    checkout();
    expect((await check({ tsadmPath: '/usr/local/sbin/tsadm', running: SCRIPT })).argv).toEqual(['/usr/local/sbin/tsadm']);
  });

  test('a script is run by this tsadm\'s Node.js, which is checked with the script\'s bundles', async () => {
    checkout();
    expect((await check({ tsadmPath: '/opt/tsadm/bin/tsadm', running: SCRIPT })).argv).toEqual(['/opt/node/bin/node', '/opt/tsadm/bin/tsadm']);
    chownSync(at('/opt/tsadm/dist/fast.mjs'), NOBODY, NOBODY);
    expect((await refusal({ tsadmPath: '/opt/tsadm/bin/tsadm', running: SCRIPT })).message).toContain('and /opt/tsadm/dist/fast.mjs is owned by uid 65534');
  });

  test('a script, from the single executable: a usage error (no Node.js to run it)', async () => {
    checkout();
    const err = await refusal({ tsadmPath: '/opt/tsadm/bin/tsadm', running: SEA });
    expect([err.code, err.message]).toEqual(['E_USAGE', '--tsadm-path /opt/tsadm/bin/tsadm is a script, and this tsadm is the single executable: there is no Node.js to run it with']);
  });

  test.each(['tsadm', './bin/tsadm', '/opt/my tsadm', '/opt/%h/tsadm', '/opt/$x'])('"%s": a usage error (relative, or systemd would split or expand it)', async (p) => {
    const err = await refusal({ tsadmPath: p });
    expect(err.code).toBe('E_USAGE');
    expect(err.message).toContain(`(got "${p}")`);
  });
});

describe('on the real machine (root "/")', () => {
  test('/usr/bin/true (root\'s, in root\'s directories) passes; a root-owned copy under /tmp (1777) is refused', async () => {
    expect((await unitProgram({ root: '/' }, { unit: UNIT, tsadmPath: '/usr/bin/true' })).argv).toEqual(['/usr/bin/true']);
    const dir = mkdtempSync('/tmp/tsadm-unit-program-live-');
    try {
      chmodSync(dir, 0o755);
      writeFileSync(path.join(dir, 'tsadm'), 'x', { mode: 0o755 });
      const err = await tsadmErrorOf(unitProgram({ root: '/' }, { unit: UNIT, tsadmPath: path.join(dir, 'tsadm') }));
      expect(err.message).toBe(`refusing to write ${UNIT}: it would run ${dir}/tsadm as root, and /tmp is writable by others (mode 1777)`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
