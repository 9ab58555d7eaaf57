/**
 * helpText (the man pages' source, scripts/package-deb.mjs) prints what the built CLI prints for
 * `--help` in a process of its own, byte for byte, for commands at every depth the man pages go to,
 * several of them in one process (the package build asks for ~150 in a row).
 */
import { spawnSync } from 'node:child_process';
import { helpText } from '../../src/help-text.js';
import { TSADM, describeBuilt } from '../helpers/built-cli.js';

const ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/nonexistent', NO_COLOR: '1' };

describeBuilt('helpText against the built CLI', () => {
  test.each([[[]], [['init']], [['init', 'phase']], [['init', 'phase', 'certs']], [['certs', 'rotate-ca']], [['token', 'create']]])('tsadm %j --help', async (words: string[]) => {
    const run = spawnSync(TSADM, [...words, '--help'], { env: ENV, encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(0);
    const text = await helpText(words, ENV);
    expect(text).toBe(run.stdout);
    expect(text).toContain('--help');
  }, 90_000);
});
