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
import { PhaseLogger } from '../../../../src/log/logger.js';
import { realResetDeps } from '../../../../src/phases/reset/deps.js';
import { createApiSeam } from '../../../../src/kube/seam.js';
import { runRemoveEtcdMember } from '../../../../src/phases/reset/remove-etcd-member.js';
import { buildResetContext } from '../../../../src/workflows/reset.js';
import { MemoryReporter } from '../../../helpers/phase-ctx.js';
import { etcdAvailable, etcdLab, type EtcdLab, type EtcdMemberProcess } from '../../../helpers/etcd-process.js';

const describeIfEtcd = etcdAvailable() ? describe : describe.skip;

describeIfEtcd('reset remove-etcd-member on real etcd', () => {
  let lab: EtcdLab;
  let m1: EtcdMemberProcess;
  let m2: EtcdMemberProcess;
  const roots: string[] = [];

  beforeAll(async () => {
    lab = await etcdLab();
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
  function nodeTree(m: EtcdMemberProcess): string {
    const root = mkdtempSync(path.join(tmpdir(), 'tsadm-reset-etcd-'));
    roots.push(root);
    const manifest = [
      'apiVersion: v1', 'kind: Pod', 'metadata:', '  name: etcd', '  namespace: kube-system', 'spec:', '  containers:', '  - command:', '    - etcd',
      `    - --advertise-client-urls=${m.client}`, '    - --data-dir=/var/lib/etcd', `    - --initial-advertise-peer-urls=${m.peer}`, `    - --name=${m.name}`,
      '    name: etcd', '  volumes:', '  - hostPath:', '      path: /var/lib/etcd', '      type: DirectoryOrCreate', '    name: etcd-data', '',
    ].join('\n');
    const files: Record<string, string> = {
      'etc/kubernetes/manifests/etcd.yaml': manifest,
      'etc/kubernetes/pki/etcd/ca.crt': lab.ca.pem,
      'etc/kubernetes/pki/etcd/healthcheck-client.crt': lab.clientPair.certPem,
      'etc/kubernetes/pki/etcd/healthcheck-client.key': lab.clientPair.keyPem,
    };
    for (const [p, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
      writeFileSync(path.join(root, p), content);
    }
    return root;
  }

  async function removeMember(root: string, dryRun = false): Promise<string[]> {
    const reporter = new MemoryReporter();
    const rooted = new RootedHost(root);
    const log = new PhaseLogger(reporter);
    const host = dryRun ? new DryRunHost(rooted) : rooted;
    const rt = { host, api: createApiSeam(host, dryRun), log, reporter, verbosity: 1, json: false, dryRun, startTime: new Date() };
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
});
