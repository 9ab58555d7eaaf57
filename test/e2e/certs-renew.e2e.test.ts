/**
 * Certificate lifecycle on a real control plane made by `tsadm init` on harness machine c1:
 * check-expiration agrees with the reference kubeadm's (which reads the cluster's kubeadm-config),
 * and `tsadm certs renew all --restart` renews every certificate, restarts etcd, the API server,
 * the controller-manager and the scheduler through the kubelet, after which the API server serves
 * the renewed certificate and every component works with its renewed credentials.
 * `certs check-expiration --kubeconfig` follows the certificatesDir of the real kubeadm-config
 * ConfigMap exactly as the reference kubeadm v1.20.2 does on the same node. Last, the same machine's
 * `tsadm reset` honours ResetConfiguration unmountFlags on a real busy mount (one init serves both:
 * these tests were a file of their own, with an init of their own, before).
 * Needs `npm run build` (machines run bin/tsadm).
 */
import { expect } from '@jest/globals';
import {
  createMachine, destroyMachine, kubeadmConfig, kubectl, machineExec, provision, requireComponents, tsadm, waitFor,
  writeSharedFile, type Machine,
} from './harness.js';
import { parseExpirationTable } from '../helpers/certs-lifecycle.js';

const CP: Machine = { name: 'c1', ip: '10.250.0.31' };
const MIN = 60_000;

interface Expiration {
  certificates: { name: string; expirationDate: string | null; missing: boolean; externallyManaged: boolean }[];
  certificateAuthorities: { name: string; expirationDate: string | null }[];
}

async function expiration(): Promise<Expiration> {
  return JSON.parse((await tsadm(CP.name, ['certs', 'check-expiration', '-o', 'json'])).stdout) as Expiration;
}

/** Serial (hex) and NotAfter of the certificate the API server serves right now. */
async function servedCertificate(): Promise<string> {
  const r = await machineExec(CP.name, ['sh', '-c', `openssl s_client -connect ${CP.ip}:6443 </dev/null 2>/dev/null | openssl x509 -noout -serial -enddate`]);
  return r.stdout.trim();
}

async function fileCertificate(file: string): Promise<string> {
  return (await machineExec(CP.name, ['openssl', 'x509', '-in', file, '-noout', '-serial', '-enddate'])).stdout.trim();
}

/** When the running container of a control-plane static pod started (from its mirror pod). */
async function startedAt(component: string): Promise<number> {
  const out = await kubectl(CP.name, ['-n', 'kube-system', 'get', 'pod', `${component}-${CP.name}`, '-o', 'jsonpath={.status.containerStatuses[0].state.running.startedAt}']);
  return out ? Date.parse(out) : 0;
}

beforeAll(async () => {
  await provision();
  requireComponents();
  await destroyMachine(CP.name).catch(() => undefined);
  await createMachine(CP.name, CP.ip);
  const config = writeSharedFile(`tsadm-${CP.name}.yaml`, await kubeadmConfig(CP.ip, CP.name));
  await tsadm(CP.name, ['init', '--config', config], { timeoutMs: 6 * MIN });
  await waitFor(async () => {
    const r = await kubectl(CP.name, ['-n', 'kube-system', 'get', 'pods', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.phase} {end}'], { reject: false });
    return ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].every((c) => r.includes(`${c}-${CP.name}=Running`));
  }, 4 * MIN, 'control-plane mirror pods Running');
}, 15 * MIN);

afterAll(async () => {
  await destroyMachine(CP.name).catch(() => undefined);
}, 5 * MIN);

describe('certificate lifecycle on a tsadm control plane', () => {
  test('check-expiration lists what the reference kubeadm lists, with the same dates', async () => {
    // Both read the cluster's ClusterConfiguration through admin.conf first and say so in the same
    // lines before the table.
    const oursOut = (await tsadm(CP.name, ['certs', 'check-expiration'])).stdout;
    const theirsOut = (await machineExec(CP.name, ['kubeadm', 'certs', 'check-expiration'])).stdout;
    expect(oursOut.slice(0, oursOut.indexOf('CERTIFICATE '))).toBe(theirsOut.slice(0, theirsOut.indexOf('CERTIFICATE ')));
    const ours = parseExpirationTable(oursOut.slice(oursOut.indexOf('CERTIFICATE ')));
    const theirs = parseExpirationTable(theirsOut.slice(theirsOut.indexOf('CERTIFICATE ')));
    expect(ours.certificates.map((r) => r.name)).toHaveLength(10);
    expect(ours.certificates.map(({ ca: _ca, ...r }) => r)).toEqual(theirs.certificates.map(({ ca: _ca, ...r }) => r));
    expect(ours.cas).toEqual(theirs.cas);
    const json = await expiration();
    expect(json.certificates.every((c) => !c.missing && !c.externallyManaged)).toBe(true);
  }, 2 * MIN);

  test('renew all --restart: every certificate renewed, the API server serves the new one after its restart, all components work', async () => {
    const before = await expiration();
    const servedBefore = await servedCertificate();
    expect(servedBefore).toBe(await fileCertificate('/etc/kubernetes/pki/apiserver.crt'));
    const apiserverStarted = await startedAt('kube-apiserver');
    await new Promise((r) => setTimeout(r, 1500)); // new NotAfter dates differ from the old ones by at least a second
    const t0 = Date.now();

    const r = await tsadm(CP.name, ['certs', 'renew', 'all', '--restart'], { timeoutMs: 10 * MIN });
    expect(r.stdout.match(/^\[renew\] .* renewed$/gm)).toHaveLength(10);
    for (const c of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
      expect(r.stdout).toContain(`[restart] ${c} restarted and healthy`);
    }

    // served: the renewed certificate on disk, not the one served before
    const served = await servedCertificate();
    expect(served).not.toBe(servedBefore);
    expect(served).toBe(await fileCertificate('/etc/kubernetes/pki/apiserver.crt'));

    // every date moved forward
    const after = await expiration();
    for (const c of after.certificates) {
      const old = before.certificates.find((b) => b.name === c.name);
      expect([c.name, Date.parse(c.expirationDate ?? '') > Date.parse(old?.expirationDate ?? '')]).toEqual([c.name, true]);
    }
    expect(after.certificateAuthorities).toEqual(before.certificateAuthorities.map((ca) => ({ ...ca, residualTime: expect.any(Number) })));

    // the containers really restarted, and with their renewed credentials they work:
    // kubectl uses the renewed admin.conf; the scheduler and the controller-manager renew their leases
    expect(await startedAt('kube-apiserver')).toBeGreaterThan(apiserverStarted);
    for (const lease of ['kube-scheduler', 'kube-controller-manager']) {
      await waitFor(async () => {
        const renewTime = await kubectl(CP.name, ['-n', 'kube-system', 'get', 'lease', lease, '-o', 'jsonpath={.spec.renewTime}'], { reject: false });
        return Date.parse(renewTime) > t0;
      }, 3 * MIN, `${lease} to renew its lease with its new certificate`);
    }
    expect(await kubectl(CP.name, ['get', '--raw', '/readyz'])).toBe('ok');
  }, 15 * MIN);

  test('check-expiration --kubeconfig: the ClusterConfiguration of kubeadm-config decides, as for the reference kubeadm', async () => {
    // The stored certificatesDir is what both tools follow: point it at a copy of the PKI that
    // lacks the API server's certificate.
    await machineExec(CP.name, ['sh', '-c', 'rm -rf /etc/kubernetes/pki-copy && cp -a /etc/kubernetes/pki /etc/kubernetes/pki-copy && rm /etc/kubernetes/pki-copy/apiserver.crt /etc/kubernetes/pki-copy/apiserver.key']);
    const cm = await kubectl(CP.name, ['-n', 'kube-system', 'get', 'cm', 'kubeadm-config', '-o', 'jsonpath={.data.ClusterConfiguration}']);
    expect(cm).toContain('certificatesDir: /etc/kubernetes/pki');
    const moved = cm.replace('certificatesDir: /etc/kubernetes/pki', 'certificatesDir: /etc/kubernetes/pki-copy');
    const patch = JSON.stringify({ data: { ClusterConfiguration: moved } });
    await kubectl(CP.name, ['-n', 'kube-system', 'patch', 'cm', 'kubeadm-config', '--type', 'merge', '-p', patch]);
    try {
      const ours = (await tsadm(CP.name, ['certs', 'check-expiration', '--kubeconfig', '/etc/kubernetes/admin.conf'])).stdout;
      const theirs = (await machineExec(CP.name, ['kubeadm', 'certs', 'check-expiration', '--kubeconfig', '/etc/kubernetes/admin.conf'])).stdout;
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
      const file = writeSharedFile('certs-check-expiration-defaults.yaml', 'apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterConfiguration\nkubernetesVersion: v1.20.2\n');
      const withConfig = (await tsadm(CP.name, ['certs', 'check-expiration', '--config', file])).stdout;
      expect(withConfig).not.toContain('Reading configuration');
      expect(parseExpirationTable(withConfig).certificates.every((c) => !c.missing)).toBe(true);
    } finally {
      await kubectl(CP.name, ['-n', 'kube-system', 'patch', 'cm', 'kubeadm-config', '--type', 'merge', '-p', JSON.stringify({ data: { ClusterConfiguration: cm } })]);
    }
  }, 3 * MIN);
});

describe('reset of the same control plane', () => {
  test('reset with unmountFlags [MNT_DETACH]: a busy mount under /var/lib/kubelet is detached (plain umount would fail) and the directory cleaned', async () => {
    const point = '/var/lib/kubelet/pods/reset-unmount-test/volumes/kubernetes.io~empty-dir/busy';
    await machineExec(CP.name, ['sh', '-c', `mkdir -p ${point} && mount -t tmpfs reset-busy-tmpfs ${point} && touch ${point}/x`]);
    // A process working inside keeps the mount busy.
    const holder = await machineExec(CP.name, ['sh', '-c', `cd ${point} && (setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!)`]);
    const holderPid = holder.stdout.trim();
    expect(holderPid).toMatch(/^\d+$/);
    const busy = await machineExec(CP.name, ['umount', point], { reject: false });
    expect(busy.exitCode).not.toBe(0);
    const cfg = writeSharedFile('reset-unmount-flags.yaml', 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\nunmountFlags: [MNT_DETACH]\n');
    const r = await tsadm(CP.name, ['reset', '--config', cfg], { timeoutMs: 4 * MIN });
    expect(r.stdout).toContain('Unmounting mounted directories in "/var/lib/kubelet"');
    expect(r.all).not.toContain(`failed to unmount ${point}`);
    const mounts = (await machineExec(CP.name, ['cat', '/proc/mounts'])).stdout;
    expect(mounts).not.toContain('reset-busy-tmpfs');
    const left = await machineExec(CP.name, ['sh', '-c', 'ls -A /var/lib/kubelet | wc -l']);
    expect(left.stdout.trim()).toBe('0');
    await machineExec(CP.name, ['kill', holderPid], { reject: false });
  }, 6 * MIN);
});
