import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { completionScript, flagValues } from '../../../src/cli/completion.js';
import { DEFAULT_KUBERNETES_VERSION } from '../../../src/versions/resolve.js';
import { DEFAULT_PATCH } from '../../../src/versions/minors.js';
import { IMAGES_OUTPUTS } from '../../../src/commands/images.js';
import { TsadmError } from '../../../src/errors.js';
import { runCli } from '../../helpers/cli.js';
import { testWithOracles, oracles } from '../../helpers/oracle.js';


describe('tsadm completion SHELL (kubeadm takes the shell as an argument)', () => {
  test.each(['bash', 'zsh'])('tsadm completion %s prints a script for tsadm', async (shell) => {
    const r = await runCli(['completion', shell]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(completionScript(shell));
    expect(r.stdout).toContain('tsadm --get-yargs-completions');
    expect(r.stdout).toMatch(shell === 'bash' ? /complete -o bashdefault -o default -F _tsadm_completions tsadm/ : /^#compdef tsadm/);
  });

  test('the bash script is valid bash (bash -n)', () => {
    const r = spawnSync('bash', ['-n'], { input: completionScript('bash'), encoding: 'utf8' });
    expect([r.status, r.stderr]).toEqual([0, '']);
  });

  testWithOracles([oracles.zsh])('the zsh script is valid zsh (zsh -n)', () => {
    const r = spawnSync('zsh', ['-n'], { input: completionScript('zsh'), encoding: 'utf8' });
    expect([r.status, r.stderr]).toEqual([0, '']);
  });

  test('bash completes from what tsadm answers (a stand-in tsadm on PATH records the words it is asked)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-completion-'));
    try {
      const fake = path.join(dir, 'tsadm');
      writeFileSync(fake, `#!/bin/sh\nprintf '%s\\n' "$*" > "${dir}/asked"\nprintf 'init\\njoin\\nreset\\n'\n`);
      chmodSync(fake, 0o755);
      const script = `${completionScript('bash')}
COMP_WORDS=(tsadm in); COMP_CWORD=1; _tsadm_completions; printf '%s\\n' "\${COMPREPLY[@]}"; cat "${dir}/asked"`;
      const r = spawnSync('bash', ['-c', script], { encoding: 'utf8', env: { PATH: `${dir}:/usr/bin:/bin` } });
      expect(r.status).toBe(0);
      expect(r.stdout).toBe('init\n--get-yargs-completions tsadm in\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test.each<[string[], RegExp]>([
    [['completion', 'fish'], /^error: unsupported shell type "fish"\nTo fix: use one of: bash, zsh\n$/],
    [['completion'], /^error: shell not specified\n/],
    [['completion', 'bash', 'zsh'], /^error: Unknown argument: zsh\n/],
  ])('tsadm %j is a usage error (exit 3)', async (args, stderr) => {
    const r = await runCli(args);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(stderr);
  });

  test('completionScript refuses an unknown shell with a TsadmError', () => {
    expect(() => completionScript('powershell')).toThrow(TsadmError);
  });

  test('what the scripts ask is answered with the real commands; the yargs script command stays hidden', async () => {
    const top = await runCli(['--get-yargs-completions', 'tsadm', '']);
    expect(top.stdout.split('\n')).toEqual(expect.arrayContaining(['init', 'join', 'completion']));
    expect(top.stdout).not.toContain('__yargs');
    const shells = await runCli(['--get-yargs-completions', 'tsadm', 'completion', '']);
    expect(shells.stdout.split('\n').filter(Boolean)).toEqual(['bash', 'zsh']);
    const z = await runCli(['--get-yargs-completions', 'tsadm', 'completion', 'z']);
    expect(z.stdout.split('\n').filter(Boolean)).toEqual(['zsh']);
    const after = await runCli(['--get-yargs-completions', 'tsadm', 'completion', 'bash', '']);
    expect(after.stdout.split('\n')).not.toContain('zsh'); // one shell only
    const flags = await runCli(['--get-yargs-completions', 'tsadm', 'completion', '--']);
    expect(flags.stdout.split('\n')).toEqual(expect.arrayContaining(['--log-file', '--help']));
    const phases = await runCli(['--get-yargs-completions', 'tsadm', 'init', 'phase', 'certs', '']);
    expect(phases.stdout.split('\n')).toEqual(expect.arrayContaining(['all', 'ca', 'sa']));
    const help = await runCli(['--help']);
    expect(help.stdout).toContain('completion [shell]');
    expect(help.stdout).not.toContain('__yargs');
  });
});

describe('completing a flag\'s value (issue 40: yargs offered the subcommand "phase" after -o)', () => {
  const complete = async (...words: string[]): Promise<string[]> => (await runCli(['--get-yargs-completions', 'tsadm', ...words])).stdout.split('\n').filter(Boolean);

  test('flagValues: the formats of each command\'s -o, the known versions, nothing for a free value', () => {
    expect(flagValues('init', 'output')).toEqual(['text', 'json']);
    expect(flagValues('init phase certs all', 'output')).toEqual(['text', 'json']);
    expect(flagValues('version', 'output')).toEqual(['yaml', 'json', 'short']);
    expect(flagValues('token list', 'output')).toEqual(['text', 'json', 'yaml', 'kyaml']);
    expect(flagValues('config images list', 'output')).toEqual(IMAGES_OUTPUTS);
    expect(flagValues('etcd snapshot save', 'output', ['text', 'json'])).toEqual(['text', 'json']);
    expect(flagValues('init', 'kubernetes-version')).toEqual(expect.arrayContaining([DEFAULT_KUBERNETES_VERSION, DEFAULT_PATCH['1.20']]));
    expect(flagValues('init', 'config')).toBeUndefined();
  });

  test.each<[string[], string[]]>([
    [['init', '-o', ''], ['text', 'json']],
    [['init', '--output', 'j'], ['json']],
    [['init', 'phase', 'certs', 'all', '-o', ''], ['text', 'json']],
    [['version', '-o', ''], ['yaml', 'json', 'short']],
    [['certs', 'check-expiration', '-o', ''], ['table', 'text', 'json', 'yaml', 'kyaml']],
    [['init', '--config', ''], []],
  ])('tsadm %j<TAB>', async (words, expected) => {
    expect(await complete(...words)).toEqual(expected);
  });

  test('--kubernetes-version offers the known versions, never a subcommand; after `phase`, the phases', async () => {
    const versions = await complete('init', '--kubernetes-version', '');
    expect(versions).toEqual(expect.arrayContaining([DEFAULT_KUBERNETES_VERSION, DEFAULT_PATCH['1.20']]));
    expect(versions).not.toContain('phase');
    expect(await complete('init', '--kubernetes-version', 'v1.20')).toEqual([DEFAULT_PATCH['1.20']]);
    expect(await complete('init', 'phase', '')).toEqual(expect.arrayContaining(['preflight', 'certs', 'addon', 'show-join-command']));
    // A boolean flag takes no value: what follows it is completed as before.
    expect(await complete('init', '--dry-run', '')).toContain('phase');
  });
});
