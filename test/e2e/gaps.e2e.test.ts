/**
 * Issue 16's smaller gaps that need a real node, on one control plane made by `tsadm init` on
 * harness machine r1 (v1.20.2): `certs check-expiration` reads the real kubeadm-config ConfigMap
 * through --kubeconfig exactly as the reference kubeadm v1.20.2 does on the same node, and
 * `tsadm reset` honours ResetConfiguration unmountFlags on a real busy mount.
 * Needs `npm run build` (machines run bin/tsadm).
 */
import { expect } from '@jest/globals';
import {
  createMachine, destroyMachine, kubeadmConfig, kubectl, machineExec, provision, requireComponents, tsadm, waitFor,
  writeSharedFile, type Machine,
} from './harness.js';
import { parseExpirationTable } from '../helpers/certs-lifecycle.js';

const R1: Machine = { name: 'r1', ip: '10.250.0.131' };
const MIN = 60_000;

beforeAll(async () => {
  await provision();
  requireComponents();
  await destroyMachine(R1.name).catch(() => undefined);
  await createMachine(R1.name, R1.ip);
  const config = writeSharedFile(`tsadm-${R1.name}.yaml`, await kubeadmConfig(R1.ip, R1.name));
  await tsadm(R1.name, ['init', '--config', config], { timeoutMs: 6 * MIN });
  await waitFor(async () => {
    const r = await kubectl(R1.name, ['-n', 'kube-system', 'get', 'pods', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.phase} {end}'], { reject: false });
    return r.includes(`kube-apiserver-${R1.name}=Running`);
  }, 4 * MIN, 'kube-apiserver mirror pod Running');
}, 15 * MIN);

afterAll(async () => {
  await destroyMachine(R1.name).catch(() => undefined);
}, 5 * MIN);

describe('gaps on a real v1.20.2 control plane', () => {
  test('check-expiration --kubeconfig: the ClusterConfiguration of kubeadm-config decides, as for the reference kubeadm', async () => {
    // The stored certificatesDir is what both tools follow: point it at a copy of the PKI that
    // lacks the API server's certificate.
    await machineExec(R1.name, ['sh', '-c', 'rm -rf /etc/kubernetes/pki-copy && cp -a /etc/kubernetes/pki /etc/kubernetes/pki-copy && rm /etc/kubernetes/pki-copy/apiserver.crt /etc/kubernetes/pki-copy/apiserver.key']);
    const cm = await kubectl(R1.name, ['-n', 'kube-system', 'get', 'cm', 'kubeadm-config', '-o', 'jsonpath={.data.ClusterConfiguration}']);
    expect(cm).toContain('certificatesDir: /etc/kubernetes/pki');
    const moved = cm.replace('certificatesDir: /etc/kubernetes/pki', 'certificatesDir: /etc/kubernetes/pki-copy');
    const patch = JSON.stringify({ data: { ClusterConfiguration: moved } });
    await kubectl(R1.name, ['-n', 'kube-system', 'patch', 'cm', 'kubeadm-config', '--type', 'merge', '-p', patch]);
    try {
      const ours = (await tsadm(R1.name, ['certs', 'check-expiration', '--kubeconfig', '/etc/kubernetes/admin.conf'])).stdout;
      const theirs = (await machineExec(R1.name, ['kubeadm', 'certs', 'check-expiration', '--kubeconfig', '/etc/kubernetes/admin.conf'])).stdout;
      expect(ours.split('\n').slice(0, 3)).toEqual([
        '[check-expiration] Reading configuration from the cluster...',
        "[check-expiration] FYI: You can look at this config file with 'kubectl -n kube-system get cm kubeadm-config -o yaml'",
        '',
      ]);
      expect(ours.split('\n').slice(0, 3)).toEqual(theirs.split('\n').slice(0, 3));
      const o = parseExpirationTable(ours.split('\n').slice(3).join('\n'));
      const t = parseExpirationTable(theirs.split('\n').slice(3).join('\n'));
      expect(o.certificates.find((c) => c.name === 'apiserver')?.missing).toBe(true);
      expect(o.certificates.filter((c) => c.missing).map((c) => c.name)).toEqual(['apiserver']);
      expect(o.certificates.map((c) => [c.name, c.missing, c.expires])).toEqual(t.certificates.map((c) => [c.name, c.missing, c.expires]));
      expect(o.cas).toEqual(t.cas);
      // --config wins over the cluster: the file's default certificatesDir has every certificate.
      const file = writeSharedFile('gaps-defaults.yaml', 'apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterConfiguration\nkubernetesVersion: v1.20.2\n');
      const withConfig = (await tsadm(R1.name, ['certs', 'check-expiration', '--config', file])).stdout;
      expect(withConfig).not.toContain('Reading configuration');
      expect(parseExpirationTable(withConfig).certificates.every((c) => !c.missing)).toBe(true);
    } finally {
      await kubectl(R1.name, ['-n', 'kube-system', 'patch', 'cm', 'kubeadm-config', '--type', 'merge', '-p', JSON.stringify({ data: { ClusterConfiguration: cm } })]);
    }
  }, 3 * MIN);

  test('reset with unmountFlags [MNT_DETACH]: a busy mount under /var/lib/kubelet is detached (plain umount would fail) and the directory cleaned', async () => {
    const point = '/var/lib/kubelet/pods/gaps-test/volumes/kubernetes.io~empty-dir/busy';
    await machineExec(R1.name, ['sh', '-c', `mkdir -p ${point} && mount -t tmpfs gaps-tmpfs ${point} && touch ${point}/x`]);
    // A process working inside keeps the mount busy.
    const holder = await machineExec(R1.name, ['sh', '-c', `cd ${point} && (setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!)`]);
    const holderPid = holder.stdout.trim();
    expect(holderPid).toMatch(/^\d+$/);
    const busy = await machineExec(R1.name, ['umount', point], { reject: false });
    expect(busy.exitCode).not.toBe(0);
    const cfg = writeSharedFile('gaps-reset.yaml', 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\nunmountFlags: [MNT_DETACH]\n');
    const r = await tsadm(R1.name, ['reset', '--config', cfg], { timeoutMs: 4 * MIN });
    expect(r.stdout).toContain('Unmounting mounted directories in "/var/lib/kubelet"');
    expect(r.all).not.toContain(`failed to unmount ${point}`);
    const mounts = (await machineExec(R1.name, ['cat', '/proc/mounts'])).stdout;
    expect(mounts).not.toContain('gaps-tmpfs');
    const left = await machineExec(R1.name, ['sh', '-c', 'ls -A /var/lib/kubelet | wc -l']);
    expect(left.stdout.trim()).toBe('0');
    await machineExec(R1.name, ['kill', holderPid], { reject: false });
  }, 6 * MIN);
});
