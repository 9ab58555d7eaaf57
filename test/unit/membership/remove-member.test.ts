/**
 * `tsadm etcd remove-member` against real etcd processes and a real kube-apiserver: a lost
 * control plane's member (its etcd stopped for good) is removed from a healthy one, with its
 * ClusterStatus entry and Node; a live member, an unknown name and the last member are refused;
 * a dry run changes nothing; a re-run is harmless.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EtcdClient } from '../../../src/etcd-client/client.js';
import { initialClusterFor, parseMembers } from '../../../src/etcd-client/members.js';
import { TsadmError } from '../../../src/errors.js';
import { DryRunHost } from '../../../src/host/dry-run-host.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { clusterStatusAddress, findMember, removeMember, type RemoveMemberResult } from '../../../src/membership/remove-member.js';
import { describeWithApiServer, registerNode, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { describeEachEtcd, etcdLab, type EtcdLab, type EtcdMemberProcess } from '../../helpers/etcd-process.js';
import { MemoryReporter, testRuntime } from '../../helpers/phase-ctx.js';

const STATUS = [
  'apiEndpoints:',
  '  cp1:', '    advertiseAddress: 10.0.0.1', '    bindPort: 6443',
  '  cp2:', '    advertiseAddress: 10.0.0.2', '    bindPort: 6443',
  '  cp3:', '    advertiseAddress: 10.0.0.3', '    bindPort: 6443',
  'apiVersion: kubeadm.k8s.io/v1beta2', 'kind: ClusterStatus', '',
].join('\n');

test('the member of a node: by name, by the peer URL of its ClusterStatus address, by hex ID', () => {
  const members = parseMembers({
    members: [
      { ID: '1', name: 'cp1', peerURLs: ['https://10.0.0.1:2380'] },
      { ID: '3735928559', peerURLs: ['https://10.0.0.2:2380'] },
      { ID: '3', name: 'cp3', peerURLs: ['https://10.0.0.3:2380'] },
    ],
  });
  // STATUS as src/kube/kubeadm-config.ts reads it (its parsing is tested there, against an API server).
  const status = { apiEndpoints: { cp1: { advertiseAddress: '10.0.0.1', bindPort: 6443 }, cp2: { advertiseAddress: '10.0.0.2', bindPort: 6443 } } };
  expect(clusterStatusAddress(status, 'cp2')).toBe('10.0.0.2');
  expect(clusterStatusAddress(status, 'cp9')).toBeUndefined();
  expect(clusterStatusAddress(undefined, 'cp1')).toBeUndefined();
  expect(findMember(members, 'cp3', undefined)?.id).toBe('3');
  // A member that never started has no name: found through the node's address, or its ID.
  expect(findMember(members, 'cp2', '10.0.0.2')?.id).toBe('3735928559');
  expect(findMember(members, 'deadbeef', undefined)?.id).toBe('3735928559');
  expect(findMember(members, 'cp2', undefined)).toBeUndefined();
});


describeEachEtcd('tsadm etcd remove-member on real etcd and a real API server', (etcd) => {
  let lab: EtcdLab;
  let server: TestApiServer;
  const m: EtcdMemberProcess[] = [];
  let root: string;

  beforeAll(async () => {
    [lab, server] = await Promise.all([etcdLab(etcd.path), startApiServer()]);
    for (const name of ['cp1', 'cp2', 'cp3']) m.push(await lab.member(name));
    const [m1, m2, m3] = m as [EtcdMemberProcess, EtcdMemberProcess, EtcdMemberProcess];
    await lab.startSingle(m1);
    const c = new EtcdClient([m1.client], { tls: lab.tls, callTimeoutMs: 30_000 });
    for (const [member, name] of [[m2, 'cp2'], [m3, 'cp3']] as const) {
      const { members } = await c.memberAdd(member.peer);
      lab.start(member, initialClusterFor(members, member.peer, name).map((x) => `${x.name}=${x.peerURL}`).join(','), 'existing');
      c.addEndpoint(member.client);
      await c.waitForClusterAvailable(120, 250);
    }
    // What a kubeadm-style v1.20 cluster has: kubeadm-config with ClusterStatus, the etcd mirror
    // Pods (how the command finds etcd), the Nodes.
    const req = async (p: string, body: unknown): Promise<void> => {
      const r = await server.request('POST', p, { auth: 'admin', body });
      expect([201, 409]).toContain(r.status);
    };
    await req('/api/v1/namespaces/kube-system/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
    await req('/api/v1/namespaces/kube-system/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kubeadm-config' }, data: { ClusterConfiguration: 'kind: ClusterConfiguration\n', ClusterStatus: STATUS } });
    for (const [i, member] of m.entries()) {
      await req('/api/v1/namespaces/kube-system/pods', {
        apiVersion: 'v1', kind: 'Pod',
        metadata: { name: `etcd-${member.name}`, labels: { component: 'etcd', tier: 'control-plane' }, annotations: { 'kubeadm.kubernetes.io/etcd.advertise-client-urls': member.client } },
        spec: { nodeName: `cp${i + 1}`, automountServiceAccountToken: false, containers: [{ name: 'etcd', image: 'registry.k8s.io/etcd:3.4.13-0' }] },
      });
      expect([201, 409]).toContain((await registerNode(server, member.name)).status);
    }
    root = mkdtempSync(path.join(tmpdir(), 'tsadm-remove-member-'));
    const files: Record<string, string> = {
      'etc/kubernetes/admin.conf': server.adminKubeconfig,
      'etc/kubernetes/pki/etcd/ca.crt': lab.ca.pem,
      'etc/kubernetes/pki/etcd/healthcheck-client.crt': lab.clientPair.certPem,
      'etc/kubernetes/pki/etcd/healthcheck-client.key': lab.clientPair.keyPem,
    };
    for (const [p, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
      writeFileSync(path.join(root, p), content);
    }
  }, 180_000);

  afterAll(async () => {
    await Promise.all([lab?.close(), server?.stop()]);
    if (root) rmSync(root, { recursive: true, force: true });
  }, 30_000);

  async function run(nodeName: string, opts: { force?: boolean; deleteNode?: boolean; dryRun?: boolean } = {}): Promise<{ result?: RemoveMemberResult; error?: unknown; lines: string[] }> {
    const reporter = new MemoryReporter();
    const rooted = new RootedHost(root);
    const host = opts.dryRun ? new DryRunHost(rooted) : rooted;
    const rt = testRuntime(host, { reporter, dryRun: opts.dryRun === true });
    try {
      const result = await removeMember(rt, {
        nodeName, kubeconfigPath: '/etc/kubernetes/admin.conf', certificatesDir: '/etc/kubernetes/pki', force: opts.force === true, deleteNode: opts.deleteNode === true,
      }, { etcdClient: (endpoints, tls) => new EtcdClient(endpoints, { tls, callTimeoutMs: 20_000 }) });
      return { result, lines: reporter.lines() };
    } catch (error) {
      return { error, lines: reporter.lines() };
    } finally {
      rt.api.close();
    }
  }

  const names = async (): Promise<string[]> => (await new EtcdClient([(m[0] as EtcdMemberProcess).client], { tls: lab.tls }).memberList()).map((x) => x.name).sort();
  const status = async (): Promise<string> => (await server.request('GET', '/api/v1/namespaces/kube-system/configmaps/kubeadm-config', { auth: 'admin' })).body.data?.ClusterStatus as string;
  const nodeExists = async (name: string): Promise<boolean> => (await server.request('GET', `/api/v1/nodes/${name}`, { auth: 'admin' })).status === 200;

  test('a member that still answers is alive: refused without --force, nothing changed', async () => {
    const { error } = await run('cp3');
    expect(error).toBeInstanceOf(TsadmError);
    expect((error as TsadmError).code).toBe('E_CONFLICT');
    expect((error as TsadmError).message).toMatch(/^etcd member "cp3" answers at https:\/\/127\.0\.0\.1:\d+: that control plane is alive$/);
    expect(await names()).toEqual(['cp1', 'cp2', 'cp3']);
    expect(await status()).toContain('cp3:');
  });

  test('an unknown name is refused, listing the members', async () => {
    const { error } = await run('cp9');
    expect((error as TsadmError).code).toBe('E_PRECONDITION');
    expect((error as TsadmError).message).toBe('no etcd member, ClusterStatus entry or Node named "cp9"; members: "cp1", "cp2", "cp3"');
  });

  test('a lost control plane (its etcd gone for good): dry run changes nothing; then member, ClusterStatus entry and Node are removed; a re-run is harmless', async () => {
    await lab.stop(m[2] as EtcdMemberProcess);
    const dry = await run('cp3', { deleteNode: true, dryRun: true });
    expect(dry.error).toBeUndefined();
    expect(dry.lines.join('\n')).toMatch(/Would remove etcd member "cp3" \(https:\/\/127\.0\.0\.1:\d+, id [0-9a-f]+\)/);
    expect(dry.result?.remaining).toEqual(['cp1', 'cp2']);
    expect(await names()).toEqual(['cp1', 'cp2', 'cp3']);
    expect(await status()).toContain('cp3:');
    expect(await nodeExists('cp3')).toBe(true);

    // Without --delete-node the Node stays (the operator may want to drain it first).
    const real = await run('cp3');
    expect(real.error).toBeUndefined();
    expect(real.lines.some((l) => /^Removed etcd member "cp3" \(https:\/\/127\.0\.0\.1:\d+\); 2 member\(s\) remain$/.test(l))).toBe(true);
    expect(real.lines).toContain('The Node "cp3" stays: delete it with `kubectl delete node cp3` (or pass --delete-node)');
    expect(real.result).toMatchObject({ member: { name: 'cp3' }, remaining: ['cp1', 'cp2'], clusterStatusUpdated: true, nodeDeleted: false });
    expect(await names()).toEqual(['cp1', 'cp2']);
    expect(await status()).not.toContain('cp3:');
    expect(await status()).toContain('cp2:');
    expect(await nodeExists('cp3')).toBe(true);
    // The cluster is healthy at two.
    const c = new EtcdClient(m.slice(0, 2).map((x) => x.client), { tls: lab.tls });
    expect((await c.clusterHealth()).healthy).toBe(true);

    // Run again (as after a crash, or to finish the job): the member is already gone, the Node goes now.
    const again = await run('cp3', { deleteNode: true });
    expect(again.error).toBeUndefined();
    expect(again.lines).toContain('No etcd member for "cp3" (already removed)');
    expect(again.result).toMatchObject({ remaining: ['cp1', 'cp2'], clusterStatusUpdated: false, nodeDeleted: true });
    expect(await nodeExists('cp3')).toBe(false);
    // Nothing of cp3 is left: a further run names nothing (a typo would look the same).
    expect(((await run('cp3')).error as TsadmError).message).toBe('no etcd member, ClusterStatus entry or Node named "cp3"; members: "cp1", "cp2"');
  }, 90_000);

  test('quorum lost (cp2 gone too: one of two members answers): nothing is removed, the command fails within its bound', async () => {
    await lab.stop(m[1] as EtcdMemberProcess);
    const t0 = Date.now();
    const noQuorum = await run('cp2');
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect((noQuorum.error as TsadmError).code).toBe('E_PRECONDITION');
    expect((noQuorum.error as TsadmError).message).toBe('the etcd cluster has lost quorum: 1 of 2 members answer ("cp1"); no member can be removed');
    expect((noQuorum.error as TsadmError).hint).toContain('/usr/share/doc/tsadm/docs/safety.md');
    expect(await new EtcdClient([(m[0] as EtcdMemberProcess).client], { tls: lab.tls }).memberList().then((l) => l.length)).toBe(2);
  }, 90_000);
}, describeWithApiServer);
