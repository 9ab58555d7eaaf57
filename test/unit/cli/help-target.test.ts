/**
 * Which target an `init --help` command line names (src/cli/help-target.ts), read before yargs
 * parses it, and the help that follows it: kubeadm's tree of that minor.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { helpTarget, readHelpConfig } from '../../../src/cli/help-target.js';
import { OWN_PHASES_HEADING } from '../../../src/cli/help.js';
import { runCli } from '../../helpers/run-cli.js';

const CONFIG = 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: InitConfiguration\n---\napiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nkubernetesVersion: v1.24.17\n';
const files = (map: Record<string, string>) => (p: string): string | undefined => map[p];

test('--kubernetes-version V and --kubernetes-version=V, only with --help or -h', () => {
  expect(helpTarget(['init', '--help', '--kubernetes-version', 'v1.24.0'], files({}))).toEqual({ version: 'v1.24.0', from: '--kubernetes-version' });
  expect(helpTarget(['init', '--kubernetes-version=1.29', '-h'], files({}))).toEqual({ version: '1.29', from: '--kubernetes-version' });
  expect(helpTarget(['init', '--kubernetes-version', 'v1.24.0'], files({}))).toBeUndefined();
  expect(helpTarget(['init', '--help'], files({}))).toBeUndefined();
});

test('--config: kubernetesVersion of its ClusterConfiguration; the flag wins; an unreadable or version-less file names none', () => {
  expect(helpTarget(['init', '--config', 'c.yaml', '--help'], files({ 'c.yaml': CONFIG }))).toEqual({ version: 'v1.24.17', from: '--config c.yaml' });
  expect(helpTarget(['init', '--config=c.yaml', '--kubernetes-version', 'v1.31.0', '--help'], files({ 'c.yaml': CONFIG }))).toEqual({ version: 'v1.31.0', from: '--kubernetes-version' });
  expect(helpTarget(['init', '--config', 'gone.yaml', '--help'], files({}))).toBeUndefined();
  expect(helpTarget(['init', '--config', 'c.yaml', '--help'], files({ 'c.yaml': 'kind: InitConfiguration\n' }))).toBeUndefined();
  expect(helpTarget(['init', '--config', 'c.yaml', '--help'], files({ 'c.yaml': ': [' }))).toBeUndefined();
});

test('readHelpConfig reads a regular file and nothing else', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-help-target-'));
  const file = path.join(dir, 'c.yaml');
  writeFileSync(file, CONFIG);
  expect(readHelpConfig(file)).toBe(CONFIG);
  expect(readHelpConfig(dir)).toBeUndefined();
  expect(readHelpConfig(path.join(dir, 'missing.yaml'))).toBeUndefined();
});

/** Top-level rows of the tree part of `init --help`, up to tsadm's own phases. */
function kubeadmRows(stdout: string): string[] {
  const tree = stdout.slice(stdout.indexOf('executes the following phases:'), stdout.indexOf(OWN_PHASES_HEADING));
  return tree.split('\n').filter((l) => /^[a-z0-9-]+ {2,}\S/.test(l)).map((l) => l.split(' ')[0]!);
}

test('tsadm init --help --kubernetes-version v1.24.0 shows kubeadm 1.24\'s tree and says where the minor came from', async () => {
  const r = await runCli(['init', '--help', '--kubernetes-version', 'v1.24.0']);
  expect(r.code).toBe(0);
  const rows = kubeadmRows(r.stdout);
  // kubeadm 1.24: kubelet-start right after kubeconfig, no show-join-command phase (golden test/fixtures/versions/1.24.yaml).
  expect(rows.indexOf('kubelet-start')).toBe(rows.indexOf('kubeconfig') + 1);
  expect(rows).not.toContain('show-join-command');
  expect(r.stdout.replace(/\s+/g, ' ')).toContain('The phases of kubeadm v1.24: the minor of v1.24.0, from --kubernetes-version');
  const newest = kubeadmRows((await runCli(['init', '--help'])).stdout);
  expect(newest).toContain('show-join-command');
});
