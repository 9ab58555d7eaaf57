/**
 * bin/tsadm and the Node.js it runs on (issue 28): tsadm needs Node 24. Started by an older Node
 * (the machine's own, e.g. Debian's 20), a checkout's launcher runs itself again with the project's
 * Node 24 (the `node` devDependency) and behaves exactly as under Node 24; a copy without one
 * refuses in one line and exit 1. Needs an older node on this machine (/usr/bin/node here).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import path from 'node:path';
import { REPO, scratchDir } from '../helpers/built-cli.js';
import { describeWithOracles, oracles, type Oracle } from '../helpers/oracle.js';

const OLD_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => {
  if (!existsSync(p)) return false;
  return Number(execFileSync(p, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim()) < 24;
});
const OWN_NODE = path.join(REPO, 'node_modules', 'node', 'bin', 'node');
const olderNode: Oracle = {
  name: 'a Node older than 24',
  missing: () => (OLD_NODE === undefined ? 'no Node older than 24 at /usr/bin/node or /usr/local/bin/node; get it: apt-get install -y nodejs' : undefined),
};

describeWithOracles([olderNode, oracles.built, oracles.projectNode])(`bin/tsadm started by an older Node (${OLD_NODE ?? 'none here'})`, () => {
  const oldNode = OLD_NODE as string;
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' };

  test('runs itself again with the project\'s Node 24: same output, exit codes and stderr as under Node 24', () => {
    const own = execFileSync(OWN_NODE, ['--version'], { encoding: 'utf8' }).trim();
    expect(own).toMatch(/^v24\./);
    const viaOld = spawnSync(oldNode, [path.join(REPO, 'bin', 'tsadm'), 'version', '-o', 'json'], { encoding: 'utf8', env });
    expect(viaOld.status).toBe(0);
    expect((JSON.parse(viaOld.stdout) as { clientVersion: { nodeVersion: string } }).clientVersion.nodeVersion).toBe(own);
    // A usage error keeps its exit code (3) and its message through the second process.
    const bad = spawnSync(oldNode, [path.join(REPO, 'bin', 'tsadm'), 'version', '-o', 'xml'], { encoding: 'utf8', env });
    const direct = spawnSync(OWN_NODE, [path.join(REPO, 'bin', 'tsadm'), 'version', '-o', 'xml'], { encoding: 'utf8', env });
    expect({ code: bad.status, stderr: bad.stderr }).toEqual({ code: 3, stderr: direct.stderr });
  });

  test('without the project\'s Node it refuses in one line naming both versions, exit 1', () => {
    const tmp = scratchDir('tsadm-launcher-');
    try {
      // bin/ and dist/ alone: a copy with no node_modules, as `npm pack` ships it.
      cpSync(path.join(REPO, 'bin'), path.join(tmp.dir, 'bin'), { recursive: true });
      cpSync(path.join(REPO, 'dist'), path.join(tmp.dir, 'dist'), { recursive: true, filter: (src) => !/\/dist\/(tsadm|sea|deb)(\/|$)|\.deb$/.test(src) });
      const r = spawnSync(oldNode, [path.join(tmp.dir, 'bin', 'tsadm'), 'version'], { encoding: 'utf8', env });
      const oldVersion = execFileSync(oldNode, ['--version'], { encoding: 'utf8' }).trim();
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')).toEqual([expect.stringContaining(`Node.js 24 or newer is required, this is ${oldVersion}`), '']);
      // The same copy runs under Node 24.
      expect(spawnSync(OWN_NODE, [path.join(tmp.dir, 'bin', 'tsadm'), 'version', '-o', 'short'], { encoding: 'utf8', env }).status).toBe(0);
    } finally {
      tmp.cleanup();
    }
  });
});
