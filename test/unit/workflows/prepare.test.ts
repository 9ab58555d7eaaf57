/**
 * `tsadm prepare`, `tsadm init phase host` and `tsadm check host` through the CLI on a --rootfs:
 * files only (the running kernel is not that root's), a second run changes nothing, init runs
 * the host phase only when asked.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { events, runCli } from '../../helpers/run-cli.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';

let root: TempRoot;
beforeEach(() => {
  root = tempRoot({ '/usr/bin/kubelet': '' });
});
afterEach(() => root.cleanup());

const BASE = ['--kubernetes-version', 'v1.20.2', '--cri-socket', '/run/containerd/containerd.sock', '-o', 'json'];
const changedOf = (stdout: string): unknown => events(stdout).find((e) => e.type === 'result')?.data?.changed;

test('tsadm prepare --rootfs writes the drop-ins; a second run changes nothing', async () => {
  const first = await runCli(['prepare', '--rootfs', root.dir, ...BASE]);
  expect(first.code).toBe(0);
  expect(changedOf(first.stdout)).toEqual([
    '/etc/modules-load.d/k8s.conf', '/etc/sysctl.d/k8s.conf', '/etc/containerd/conf.d/k8s.toml', '/etc/containerd/config.toml',
    '/etc/systemd/system/kubelet.service', '/etc/systemd/system/kubelet.service.d/10-kubeadm.conf', '/etc/crictl.yaml',
  ]);
  expect(readFileSync(root.at('/etc/sysctl.d/k8s.conf'), 'utf8')).toBe('net.bridge.bridge-nf-call-iptables = 1\nnet.bridge.bridge-nf-call-ip6tables = 1\nnet.ipv4.ip_forward = 1\n');
  const second = await runCli(['prepare', '--rootfs', root.dir, ...BASE]);
  expect(second.code).toBe(0);
  expect(changedOf(second.stdout)).toEqual([]);
});

test('tsadm prepare --dry-run lists every change and writes nothing', async () => {
  const r = await runCli(['prepare', '--rootfs', root.dir, '--dry-run', '--kubernetes-version', 'v1.20.2', '--cri-socket', '/run/containerd/containerd.sock']);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('/etc/containerd/conf.d/k8s.toml');
  expect(r.stdout).toContain('Would write file "/etc/sysctl.d/k8s.conf"');
  expect(existsSync(root.at('/etc/sysctl.d'))).toBe(false);
});

test('init runs the host phase only with --prepare-host; `init phase host sysctl` runs it alone', async () => {
  const phase = await runCli(['init', 'phase', 'host', 'sysctl', '--rootfs', root.dir, '--kubernetes-version', 'v1.20.2', '-o', 'json']);
  expect(phase.code).toBe(0);
  expect(existsSync(root.at('/etc/sysctl.d/k8s.conf'))).toBe(true);
  expect(existsSync(root.at('/etc/crictl.yaml'))).toBe(false);
  const plan = await runCli(['init', '--rootfs', root.dir, '--dry-run', '--kubernetes-version', 'v1.20.2', '--cri-socket', '/run/containerd/containerd.sock', '--skip-phases', 'preflight', '-o', 'json']);
  const evs = events(plan.stdout) as Array<{ type: string; phase?: string; status?: string }>;
  expect(evs.find((e) => e.type === 'phase-finish' && e.phase === 'host')?.status).toBe('skipped');
  expect(evs.some((e) => e.type === 'phase-start' && e.phase?.startsWith('host/'))).toBe(false);
  const asked = await runCli(['init', '--rootfs', root.dir, '--dry-run', '--prepare-host', '--kubernetes-version', 'v1.20.2', '--cri-socket', '/run/containerd/containerd.sock', '--skip-phases', 'preflight', '-o', 'json']);
  const started = (events(asked.stdout) as Array<{ type: string; phase?: string }>).filter((e) => e.type === 'phase-start').map((e) => e.phase);
  expect(started.slice(0, 7)).toEqual(['host/binaries', 'host/kernel-modules', 'host/sysctl', 'host/swap', 'host/container-runtime', 'host/kubelet-service', 'host/crictl']);
});

test('tsadm check host: fails on a bare root, passes once prepared', async () => {
  const bare = await runCli(['check', 'host', '--rootfs', root.dir, ...BASE]);
  expect(bare.code).not.toBe(0);
  expect(bare.stdout).toContain('/etc/sysctl.d/k8s.conf');
  expect((await runCli(['prepare', '--rootfs', root.dir, ...BASE])).code).toBe(0);
  const ok = await runCli(['check', 'host', '--rootfs', root.dir, ...BASE]);
  expect(ok.code).toBe(0);
});

test('tsadm prepare --bundle --plan: the plan carries the verified binaries; tsadm apply installs exactly them', async () => {
  const bundle = tempRoot({});
  try {
    const kubelet = "#!/bin/sh\necho 'Kubernetes v1.20.2'\n";
    const kubectl = '#!/bin/sh\necho \'{"clientVersion":{"gitVersion":"v1.20.2"}}\'\n';
    const sums: string[] = [];
    for (const [name, text] of [['kubelet', kubelet], ['kubectl', kubectl]] as const) {
      writeFileSync(bundle.at(`/${name}`), text, { mode: 0o755 });
      sums.push(`${createHash('sha256').update(text).digest('hex')}  ${name}\n`);
    }
    writeFileSync(bundle.at('/SHA256SUMS'), sums.join(''));
    const planFile = path.join(bundle.dir, 'plan.json');
    const planned = await runCli(['prepare', '--rootfs', root.dir, '--bundle', bundle.dir, '--plan', planFile, ...BASE]);
    expect(planned.code).toBe(0);
    expect(readFileSync(root.at('/usr/bin/kubelet'), 'utf8')).toBe(''); // --plan implies --dry-run
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { steps: { type: string; path?: string; kind?: string; mode?: string; text?: string; base64?: string }[] };
    const step = plan.steps.find((s) => s.type === 'file' && s.path === '/usr/bin/kubelet');
    expect(step).toMatchObject({ kind: 'binary', mode: '0755' });
    expect(step?.text ?? Buffer.from(step?.base64 ?? '', 'base64').toString('utf8')).toBe(kubelet);
    const applied = await runCli(['apply', planFile, '--rootfs', root.dir, '-o', 'json']);
    expect(applied.code).toBe(0);
    expect(readFileSync(root.at('/usr/bin/kubelet'), 'utf8')).toBe(kubelet);
    expect(statSync(root.at('/usr/bin/kubectl')).mode & 0o777).toBe(0o755);
  } finally {
    bundle.cleanup();
  }
});
