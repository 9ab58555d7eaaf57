/**
 * `tsadm certs rotate-ca`: the command surface in-process (help, flags, refusals before anything
 * is contacted). The subcommands' work against a cluster is the e2e's (docs/certs.md).
 */
import { ROTATABLE } from '../../../src/certs-lifecycle/rotate-ca/state.js';
import { runCli } from '../../helpers/cli.js';
import { tempRoot } from '../../helpers/temp-root.js';
import path from 'node:path';

test('help lists the four subcommands under certs, and each names its flags', async () => {
  const certs = await runCli(['certs', '--help']);
  expect(certs.stdout).toMatch(/rotate-ca\s+Replace the cluster's certificate authorities/);
  const top = await runCli(['certs', 'rotate-ca', '--help']);
  for (const sub of ['start', 'node', 'status', 'abort']) expect(top.stdout).toMatch(new RegExp(`rotate-ca ${sub}\\s`));
  const start = await runCli(['certs', 'rotate-ca', 'start', '--help']);
  for (const flag of ['--ca', '--from', '--sa-grace', '--rotation-key-file', '--dry-run', '--plan', '--kubeconfig', '--rootfs', '--node-name']) expect([flag, start.stdout.includes(flag)]).toEqual([flag, true]);
  // --ca's help (src/flags.ts, the base layer) spells out the list the rotation knows.
  expect(start.stdout.replace(/\s+/g, ' ')).toContain(`comma-separated list of ${ROTATABLE.join(', ')}.`);
  const node = await runCli(['certs', 'rotate-ca', 'node', '--help']);
  for (const flag of ['--rotation-key', '--rotation-key-file', '--dry-run', '--plan']) expect([flag, node.stdout.includes(flag)]).toEqual([flag, true]);
  const status = await runCli(['certs', 'rotate-ca', 'status', '--help']);
  expect(status.stdout).toMatch(/exits 0 only when the rotation is complete/);
});

test('without a subcommand, with an unknown --ca, or off a control plane: refused before any cluster is contacted', async () => {
  const root = tempRoot({ '/etc/kubernetes/pki/ca.crt': 'x' });
  try {
    const none = await runCli(['certs', 'rotate-ca']);
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/specify a subcommand: start, node, status, abort/);
    const bad = await runCli(['certs', 'rotate-ca', 'start', '--ca', 'cluster,kubelet', '--rootfs', root.dir]);
    expect([bad.code, bad.stderr]).toEqual([3, expect.stringMatching(/--ca: unknown "kubelet"/)]);
    const worker = await runCli(['certs', 'rotate-ca', 'start', '--rootfs', root.dir, '--dry-run']);
    expect([worker.code, worker.stderr]).toEqual([1, expect.stringMatching(/start runs on a control plane/)]);
    const planKey = await runCli(['certs', 'rotate-ca', 'node', '--plan', path.join(root.dir, 'p.json'), '--rotation-key', 'k', '--rootfs', root.dir]);
    expect([planKey.code, planKey.stderr]).toEqual([3, expect.stringMatching(/--plan does not take --rotation-key: give --rotation-key-file/)]);
    const grace = await runCli(['certs', 'rotate-ca', 'start', '--sa-grace', 'soon', '--rootfs', root.dir]);
    expect([grace.code, grace.stderr]).toEqual([3, expect.stringMatching(/--sa-grace/)]);
  } finally {
    root.cleanup();
  }
});
