/**
 * reset's remove-etcd-member against real etcd processes: this node's member (found through
 * its own manifest) is removed through etcd's API; the last member is kept; dry-run only looks.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { EtcdClient } from '../../../../src/etcd-client/client.js';
import { initialClusterFor } from '../../../../src/etcd-client/members.js';
import { DryRunHost } from '../../../../src/host/dry-run-host.js';
import { RootedHost } from '../../../../src/host/rooted-host.js';
import { realResetDeps } from '../../../../src/phases/reset/deps.js';
import { runRemoveEtcdMember } from '../../../../src/phases/reset/remove-etcd-member.js';
import { buildResetContext } from '../../../../src/workflows/reset.js';
import { MemoryReporter, testRuntime } from '../../../helpers/phase-ctx.js';
import { describeWithApiServer, startApiServer, type TestApiServer } from '../../../helpers/apiserver.js';
import { describeEachEtcd, etcdLab, type EtcdLab, type EtcdMemberProcess } from '../../../helpers/etcd-process.js';


/**
 * A control-plane node's tree in a new temporary directory (recorded in `roots` for cleanup): the
 * etcd manifest naming member `m`, the etcd client identity, and any `extra` files.
 */
function etcdNodeTree(roots: string[], prefix: string, m: EtcdMemberProcess, lab: EtcdLab, extra: Record<string, string> = {}): string {
  const root = mkdtempSync(path.join(tmpdir(), prefix));
  roots.push(root);
  const manifest = [
    'apiVersion: v1', 'kind: Pod', 'metadata:', '  name: etcd', '  namespace: kube-system', 'spec:', '  containers:', '  - command:', '    - etcd',
    `    - --advertise-client-urls=${m.client}`, '    - --data-dir=/var/lib/etcd', `    - --initial-advertise-peer-urls=${m.peer}`, `    - --name=${m.name}`,
    '    name: etcd', '',
  ].join('\n');
  const files: Record<string, string> = {
    'etc/kubernetes/manifests/etcd.yaml': manifest,
    'etc/kubernetes/pki/etcd/ca.crt': lab.ca.pem,
    'etc/kubernetes/pki/etcd/healthcheck-client.crt': lab.clientPair.certPem,
    'etc/kubernetes/pki/etcd/healthcheck-client.key': lab.clientPair.keyPem,
    ...extra,
  };
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    writeFileSync(path.join(root, p), content);
  }
  return root;
}

describeEachEtcd('reset remove-etcd-member on real etcd', (etcd) => {
  let lab: EtcdLab;
  let m1: EtcdMemberProcess;
  let m2: EtcdMemberProcess;
  const roots: string[] = [];

  beforeAll(async () => {
    lab = await etcdLab(etcd.path);
    m1 = await lab.member('cp1');
    m2 = await lab.member('cp2');
    await lab.startSingle(m1);
    const c = new EtcdClient([m1.client], { tls: lab.tls });
    const { members } = await c.memberAdd(m2.peer);
    lab.start(m2, initialClusterFor(members, m2.peer, 'cp2').map((m) => `${m.name}=${m.peerURL}`).join(','), 'existing');
    c.addEndpoint(m2.client);
    await c.waitForClusterAvailable(80, 250);
  }, 90_000);

  afterAll(async () => {
    await lab?.close();
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  }, 30_000);

  /** A control-plane node's tree: its etcd manifest and the etcd client identity. */
  const nodeTree = (m: EtcdMemberProcess): string => etcdNodeTree(roots, 'tsadm-reset-etcd-', m, lab);

  async function removeMember(root: string, dryRun = false): Promise<string[]> {
    const reporter = new MemoryReporter();
    const rooted = new RootedHost(root);
    const host = dryRun ? new DryRunHost(rooted) : rooted;
    const rt = testRuntime(host, { reporter, dryRun });
    const ctx = await buildResetContext({ force: true }, rt, realResetDeps(Readable.from([])));
    try {
      await runRemoveEtcdMember(ctx);
    } finally {
      rt.api.close();
    }
    return reporter.lines();
  }

  const names = async (): Promise<string[]> => (await new EtcdClient([m1.client], { tls: lab.tls }).memberList()).map((m) => m.name).sort();

  test('dry-run names the member it would remove and leaves it', async () => {
    const lines = await removeMember(nodeTree(m2), true);
    expect(lines.join('\n')).toMatch(/Would remove etcd member "cp2" \(https:\/\/127\.0\.0\.1:\d+, id \d+\)/);
    expect(await names()).toEqual(['cp1', 'cp2']);
  });

  test('removes this node\'s member; the other keeps serving', async () => {
    const lines = await removeMember(nodeTree(m2));
    expect(lines).toContain(`Removed etcd member "cp2" (${m2.peer}); 1 member(s) remain`);
    expect(await names()).toEqual(['cp1']);
    await lab.stop(m2);
  }, 30_000);

  test('the last member is not removed', async () => {
    const lines = await removeMember(nodeTree(m1));
    expect(lines).toContain('This is the only remaining etcd member in the etcd cluster, skip removing it');
    expect(await names()).toEqual(['cp1']);
  });
  test('ResetConfiguration timeouts.etcdAPICall bounds the calls: a stopped etcd is given up after 1 s, with a warning', async () => {
    const stopped = await lab.member('gone');
    const root = nodeTree(stopped);
    const cfgFile = path.join(root, 'reset.yaml');
    writeFileSync(cfgFile, 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\ntimeouts:\n  etcdAPICall: 1s\n');
    const reporter = new MemoryReporter();
    const host = new RootedHost(root);
    const rt = testRuntime(host, { reporter });
    const ctx = await buildResetContext({ config: cfgFile }, rt, realResetDeps(Readable.from([])));
    expect(ctx.cfg.reset.timeouts?.etcdAPICallMs).toBe(1000);
    const t0 = Date.now();
    try {
      await runRemoveEtcdMember(ctx);
    } finally {
      rt.api.close();
    }
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(500);
    expect(took).toBeLessThan(3000);
    expect(reporter.lines().join('\n')).toMatch(/failed to remove etcd member: .*ECONNREFUSED.*\(gave up after 1s, timeouts\.etcdAPICall\)/);
  }, 20_000);

  test('a dry run does not wait out timeouts.etcdAPICall: a stopped etcd is reported at once (kubeadm does not contact etcd in a dry run)', async () => {
    const stopped = await lab.member('gone-dry');
    const t0 = Date.now();
    const lines = await removeMember(nodeTree(stopped), true);
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(lines.join('\n')).toMatch(/failed to remove etcd member: .*ECONNREFUSED/);
  }, 60_000);
});


/**
 * A learner left by a join killed before its promotion: its own etcd answers no membership call
 * ("rpc not supported for learner"), or is not running at all, so reset finds the other members
 * where kubeadm does (the etcd Pods' advertise-client-urls annotation, through admin.conf) and
 * removes the learner through them.
 */
describeEachEtcd('reset remove-etcd-member of a node whose member is a learner', (etcd) => {
  let lab: EtcdLab;
  let server: TestApiServer;
  let m1: EtcdMemberProcess;
  const roots: string[] = [];

  beforeAll(async () => {
    [lab, server] = await Promise.all([etcdLab(etcd.path), startApiServer()]);
    m1 = await lab.member('cp1');
    await lab.startSingle(m1);
    // The first control plane's etcd mirror Pod, as the kubelet posts it.
    const sa = await server.request('POST', '/api/v1/namespaces/kube-system/serviceaccounts', { auth: 'admin', body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
    expect([201, 409]).toContain(sa.status);
    const pod = await server.request('POST', '/api/v1/namespaces/kube-system/pods', {
      auth: 'admin',
      body: {
        apiVersion: 'v1', kind: 'Pod',
        metadata: { name: 'etcd-cp1', labels: { component: 'etcd', tier: 'control-plane' }, annotations: { 'kubeadm.kubernetes.io/etcd.advertise-client-urls': m1.client } },
        spec: { nodeName: 'cp1', automountServiceAccountToken: false, containers: [{ name: 'etcd', image: 'registry.k8s.io/etcd:3.4.13-0' }] },
      },
    });
    expect(pod.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([lab?.close(), server?.stop()]);
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  }, 30_000);

  const learnerTree = (m: EtcdMemberProcess): string => etcdNodeTree(roots, 'tsadm-reset-learner-', m, lab, { 'etc/kubernetes/admin.conf': server.adminKubeconfig });

  async function removeMember(root: string): Promise<string[]> {
    const reporter = new MemoryReporter();
    const host = new RootedHost(root);
    const rt = testRuntime(host, { reporter });
    const ctx = await buildResetContext({ force: true }, rt, realResetDeps(Readable.from([])));
    try {
      await runRemoveEtcdMember(ctx);
    } finally {
      rt.api.close();
    }
    return reporter.lines();
  }

  const members = async (): Promise<Array<{ peer: string | undefined; learner: boolean }>> =>
    (await new EtcdClient([m1.client], { tls: lab.tls }).memberList()).map((m) => ({ peer: m.peerURLs[0], learner: m.isLearner }));

  test('a learner whose etcd runs (and refuses membership calls) is removed through the other members', async () => {
    const m2 = await lab.member('cp2');
    const c = new EtcdClient([m1.client], { tls: lab.tls });
    const { members: after } = await c.memberAdd(m2.peer, { learner: true });
    lab.start(m2, initialClusterFor(after, m2.peer, 'cp2').map((m) => `${m.name}=${m.peerURL}`).join(','), 'existing');
    c.addEndpoint(m2.client);
    await c.waitForClusterAvailable(80, 250);
    await expect(new EtcdClient([m2.client], { tls: lab.tls, attempts: 1 }).memberList()).rejects.toThrow('etcdserver: rpc not supported for learner');
    expect(await members()).toEqual(expect.arrayContaining([{ peer: m2.peer, learner: true }]));
    const lines = await removeMember(learnerTree(m2));
    expect(lines).toContain(`Removed etcd member "cp2" (${m2.peer}); 1 member(s) remain`);
    expect(await members()).toEqual([{ peer: m1.peer, learner: false }]);
    await lab.stop(m2);
  }, 60_000);

  test('a learner whose etcd never started is removed through the other members', async () => {
    const m3 = await lab.member('cp3');
    const { added } = await new EtcdClient([m1.client], { tls: lab.tls }).memberAdd(m3.peer, { learner: true });
    const lines = await removeMember(learnerTree(m3));
    expect(lines).toContain(`Removed etcd member ${added.id} (never started, a learner) (${m3.peer}); 1 member(s) remain`);
    expect(await members()).toEqual([{ peer: m1.peer, learner: false }]);
  }, 60_000);
}, describeWithApiServer);
