/**
 * The launcher's fast path (src/fast-path.ts) answers `tsadm version` without loading the CLI.
 * It must print exactly what the full CLI prints for every spelling it takes, and hand every
 * other argv to the CLI.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fastPathOutput } from '../../src/fast-path.js';
import { runCli } from '../helpers/cli.js';
import { testWithOracles, oracles } from '../helpers/oracle.js';

const TAKEN = [['version'], ['version', '-o', 'short'], ['version', '--output', 'json'], ['version', '-o=short'], ['version', '--output=json']];
const PASSED_ON = [
  [], ['version', '-o', 'yaml'], ['version', '-o', 'bad'], ['version', '--help'], ['version', '-o'], ['version', 'extra'],
  ['version', '-o', 'json', '-v', '2'], ['version', '-ojson'], ['--version'], ['init', 'version'],
  ['token', 'generate', '--help'], ['token', 'generate', 'extra'], ['token', 'generate', '-v', '2'], ['token'], ['generate', 'token'],
];

describe('the version fast path', () => {
  test.each(TAKEN.map((a) => [a.join(' '), a]))('"%s" is answered exactly as the full CLI answers it', async (_, argv) => {
    const full = await runCli(argv);
    expect(full.code).toBe(0);
    expect(fastPathOutput(argv)).toBe(full.stdout);
  });

  test.each(PASSED_ON.map((a) => [a.join(' ') || '(no arguments)', a]))('"%s" goes to the full CLI', (_, argv) => {
    expect(fastPathOutput(argv)).toBeUndefined();
  });

  test('a bare "token generate" prints a fresh bootstrap token in the format the full CLI prints', async () => {
    const full = await runCli(['token', 'generate']);
    expect(full.code).toBe(0);
    const fast = [fastPathOutput(['token', 'generate']), fastPathOutput(['token', 'generate'])];
    for (const out of [full.stdout, ...fast]) expect(out).toMatch(/^[a-z0-9]{6}\.[a-z0-9]{16}\n$/);
    expect(fast[0]).not.toBe(fast[1]);
  });

  const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/tsadm');
  testWithOracles([oracles.built])('the built launcher prints through the fast path what its full CLI prints; other commands still work', () => {
    const run = (argv: string[]) => spawnSync(process.execPath, [bin, ...argv], { encoding: 'utf8' });
    for (const argv of TAKEN) {
      const fast = run(argv);
      expect({ argv, code: fast.status, stderr: fast.stderr }).toEqual({ argv, code: 0, stderr: '' });
      // A trailing "--" changes nothing for yargs but is not a spelling the fast path takes.
      const full = run([...argv, '--']);
      expect(fastPathOutput([...argv, '--'])).toBeUndefined();
      expect({ argv, code: full.status, stdout: fast.stdout }).toEqual({ argv, code: 0, stdout: full.stdout });
    }
    const token = run(['token', 'generate']);
    expect({ code: token.status, stderr: token.stderr }).toEqual({ code: 0, stderr: '' });
    expect(token.stdout).toMatch(/^[a-z0-9]{6}\.[a-z0-9]{16}\n$/);
    const yaml = spawnSync(process.execPath, [bin, 'version', '-o', 'yaml'], { encoding: 'utf8' });
    expect(yaml.status).toBe(0);
    expect(yaml.stdout).toContain('clientVersion:');
    const bad = spawnSync(process.execPath, [bin, 'version', '-o', 'bad'], { encoding: 'utf8' });
    expect(bad.status).toBe(3);
    expect(bad.stderr).toContain('invalid output format: bad');
  });
});
