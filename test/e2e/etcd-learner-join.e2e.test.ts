/**
 * The stacked-etcd join after the learner work, on harness machines e1/e2 (10.250.0.111–112) with
 * the real v1.20.2 components: tsadm init on e1, tsadm join --control-plane on e2. Kubernetes 1.20
 * has no EtcdLearnerMode gate (kubeadm added it in 1.27), so the member is added as a voter and
 * nothing is promoted; reset of e2 then removes its member. The learner path itself is proven
 * against real etcd in test/unit/phases/join/etcd-member-join.test.ts (no newer kubelet here).
 */
import {
  createMachine, destroyMachine, kubeadmConfig, machineExec, machineLog, provision, requireComponents, tsadm, writeSharedFile, type ExecResult, type Machine,
} from './harness.js';

const E1: Machine = { name: 'e1', ip: '10.250.0.111' };
const E2: Machine = { name: 'e2', ip: '10.250.0.112' };
const MIN = 60_000;
const CRI = '/run/containerd/containerd.sock';

async function tsadmOk(m: Machine, args: string[]): Promise<ExecResult> {
  const r = await tsadm(m.name, args, { reject: false, timeoutMs: 8 * MIN });
  if (r.exitCode !== 0) throw new Error(`tsadm ${args.join(' ')} on ${m.name} exited ${r.exitCode}:\n${r.all}\n--- kubelet\n${machineLog(m.name)}`);
  return r;
}

async function members(m: Machine): Promise<Array<{ name: string; isLearner?: boolean }>> {
  const r = await machineExec(m.name, ['sh', '-c',
    `cd /etc/kubernetes/pki/etcd && curl -sS --max-time 10 --cacert ca.crt --cert healthcheck-client.crt --key healthcheck-client.key -X POST https://${m.ip}:2379/v3/cluster/member/list -d '{}'`]);
  return (JSON.parse(r.stdout) as { members: Array<{ name: string; isLearner?: boolean }> }).members;
}

beforeAll(async () => {
  await provision();
  requireComponents();
  for (const m of [E1, E2]) await destroyMachine(m.name);
  await Promise.all([E1, E2].map((m) => createMachine(m.name, m.ip)));
}, 20 * MIN);

afterAll(async () => {
  for (const m of [E1, E2]) await destroyMachine(m.name).catch(() => undefined);
}, 5 * MIN);

test('v1.20.2: control-plane join adds a voting etcd member (no learner, nothing promoted); reset removes it', async () => {
  const config = writeSharedFile('tsadm-e1.yaml', await kubeadmConfig(E1.ip, E1.name));
  const init = await tsadmOk(E1, ['init', '--config', config, '--upload-certs']);
  const flat = init.stdout.replace(/\\\r?\n/g, ' ');
  const arg = (re: RegExp): string => re.exec(flat)?.[1] ?? '';
  const join = ['join', arg(/tsadm join (\S+)/), '--token', arg(/--token (\S+)/), '--discovery-token-ca-cert-hash', arg(/--discovery-token-ca-cert-hash (\S+)/), '--cri-socket', CRI];

  const r = await tsadmOk(E2, [...join, '--control-plane', '--certificate-key', arg(/--certificate-key (\S+)/), '--apiserver-advertise-address', E2.ip, '-v', '1',
    // No registry is reachable from a harness machine: the preflight pull may only warn (scripts/e2e/README.md).
    '--ignore-preflight-errors', 'ImagePull']);
  expect(r.stdout).toContain('[etcd] Announced new etcd member joining to the existing etcd cluster');
  expect(r.stdout).toContain('[etcd] Waiting for the new etcd member to join the cluster. This can take up to 40s');
  expect(r.all).not.toContain('learner');
  expect(r.all).not.toContain('Promoting');
  const after = await members(E1);
  expect(after.map((m) => m.name).sort()).toEqual(['e1', 'e2']);
  expect(after.every((m) => m.isLearner !== true)).toBe(true);

  const reset = await tsadmOk(E2, ['reset', '--force']);
  expect(reset.stdout).toContain('[reset] Removed etcd member "e2"');
  expect((await members(E1)).map((m) => m.name)).toEqual(['e1']);
}, 20 * MIN);
