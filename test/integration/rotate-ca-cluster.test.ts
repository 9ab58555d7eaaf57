/**
 * The API half of `certs rotate-ca` against a real kube-apiserver v1.20.2 (one start for the
 * file): `start` records the rotation's state (ConfigMap kube-system/tsadm-rotate-ca, every Node
 * with its role), stores the new CA key encrypted in the Secret kube-system/tsadm-rotate-ca-keys
 * owned by an expiring bootstrap-token Secret, and grants system:nodes get/update on the state and
 * nothing more; a kubelet's credentials read and record progress; two nodes finishing at once both
 * count (a conflict re-reads); a second start is refused; status exits 4; abort turns to rollback.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describeWithApiServer, startApiServer, type TestApiServer } from '../helpers/apiserver.js';
import { captureIo } from '../helpers/cli.js';
import { tempRoot, type TempRoot } from '../helpers/temp-root.js';
import { tsadmErrorOf } from '../helpers/tsadm-error.js';
import { readRotation, updateRotation } from '../../src/certs-lifecycle/rotate-ca/cluster.js';
import { KEYS_SECRET, KEYS_TOKEN_DESCRIPTION, keysFromSecret } from '../../src/certs-lifecycle/rotate-ca/handoff.js';
import { runAbort, runStart, runStatus } from '../../src/certs-lifecycle/rotate-ca/run.js';
import { markDone, markStarted } from '../../src/certs-lifecycle/rotate-ca/state.js';
import { openKubeApi } from '../../src/kube/open.js';
import { NO_RETRY } from '../../src/kube/retry.js';
import type { KubeApi, SecretObject } from '../../src/kube/types.js';
import { createRuntime, type Runtime } from '../../src/run/runtime.js';

const quiet = { info: () => undefined, warn: () => undefined, debug: () => undefined, event: () => undefined, output: () => undefined } as never;

describeWithApiServer('certs rotate-ca against a real API server', () => {
  let server: TestApiServer;
  let root: TempRoot;
  let id: string;
  const runtimes: Runtime[] = [];

  async function runtime(): Promise<Runtime> {
    const { io } = captureIo();
    const rt = await createRuntime({ rootfs: root.dir }, { io });
    runtimes.push(rt);
    return rt;
  }
  const asUser = (kubeconfigText: string): Promise<KubeApi> => openKubeApi({ kubeconfigText, source: 'test', log: quiet, dryRun: false, retry: NO_RETRY });

  beforeAll(async () => {
    server = await startApiServer();
    root = tempRoot({
      '/etc/kubernetes/admin.conf': { content: server.adminKubeconfig, mode: 0o600 },
      '/etc/kubernetes/pki/ca.crt': server.caPem,
      '/etc/kubernetes/pki/ca.key': { content: server.caKeyPem, mode: 0o600 },
      '/etc/kubernetes/manifests/kube-apiserver.yaml': 'apiVersion: v1\nkind: Pod\n',
      '/elsewhere/.keep': '',
    });
    for (const [name, labels] of [['cp1', { 'node-role.kubernetes.io/master': '' }], ['w1', {}]] as const) {
      const r = await server.request('POST', '/api/v1/nodes', { auth: 'admin', body: { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } } });
      expect(r.status).toBe(201);
    }
    const rt = await runtime();
    ({ id } = await runStart(rt, { items: ['cluster'], saGraceSeconds: 0, nodeName: 'cp1', rotationKeyFile: root.at('/elsewhere/rotation.key') }));
  }, 120_000);
  afterAll(async () => {
    for (const rt of runtimes) {
      rt.api.close();
      await rt.reporter.close();
    }
    root?.cleanup();
    await server?.stop();
  }, 30_000);

  test('the state: trust-both, every Node with its role, the old and new CA as public material only', async () => {
    const cm = await server.request('GET', '/api/v1/namespaces/kube-system/configmaps/tsadm-rotate-ca', { auth: 'admin' });
    expect(cm.status).toBe(200);
    const text = (cm.body as unknown as { data: Record<string, string> }).data['state.json']!;
    expect(text).not.toMatch(/PRIVATE KEY/);
    const state = JSON.parse(text) as { id: string; phase: string; nodes: Record<string, { role: string }>; items: { cluster: { old: string } } };
    expect([state.id, state.phase, state.nodes]).toEqual([id, 'trust-both', { cp1: { role: 'control-plane' }, w1: { role: 'worker' } }]);
    expect(state.items.cluster.old.trim()).toBe(server.caPem.trim());
  });

  test('the key Secret: sealed under the rotation key (the file start wrote), owned by a bootstrap token that expires', async () => {
    const api = await asUser(server.adminKubeconfig);
    const secret = await api.get<SecretObject>('Secret', KEYS_SECRET, 'kube-system');
    const owner = secret?.metadata.ownerReferences?.[0];
    expect(owner).toEqual(expect.objectContaining({ kind: 'Secret', name: expect.stringMatching(/^bootstrap-token-[a-z0-9]{6}$/) as unknown }));
    const token = await api.get<SecretObject>('Secret', owner!.name, 'kube-system');
    expect(token?.metadata.uid).toBe(owner!.uid);
    const data = token?.data ?? {};
    expect(Buffer.from(data.description ?? '', 'base64').toString()).toBe(KEYS_TOKEN_DESCRIPTION);
    expect(new Date(Buffer.from(data.expiration ?? '', 'base64').toString()).getTime()).toBeGreaterThan(Date.now());
    const keys = keysFromSecret(secret!, id, readFileSync(root.at('/elsewhere/rotation.key'), 'utf8'));
    expect(keys.cluster).toBe(readFileSync(root.at(`/etc/kubernetes/tmp/tsadm-rotate-ca-${id}/new/cluster.key`), 'utf8'));
    expect(Object.values(secret?.data ?? {}).map((v) => Buffer.from(v, 'base64').toString('latin1')).join('')).not.toMatch(/PRIVATE KEY/);
  });

  test('a kubelet\'s credentials read and update the state, and cannot read the key Secret', async () => {
    const node = await asUser(server.clientKubeconfig('system:node:w1', 'system:nodes'));
    expect((await readRotation(node))?.id).toBe(id);
    const marked = await updateRotation(node, (live) => markStarted(live!, 'w1'));
    expect(marked.nodes.w1?.started).toBe('trust-both');
    await expect(node.get('Secret', KEYS_SECRET, 'kube-system')).rejects.toThrow(/forbidden/i);
  });

  test('two nodes finishing at once both count: a conflict re-reads the state and applies the change again', async () => {
    const admin = await asUser(server.adminKubeconfig);
    const node = await asUser(server.clientKubeconfig('system:node:w1', 'system:nodes'));
    const now = new Date();
    // w1 finishes between cp1's read of the state and its write: cp1's write conflicts, for certain.
    let reads = 0;
    const racing: KubeApi = Object.assign(Object.create(admin) as KubeApi, {
      get: async (...args: Parameters<KubeApi['get']>) => {
        const read = await admin.get(...args);
        // updateRotation's own read, then the one its update makes just before writing
        if (++reads === 2) await updateRotation(node, (live) => markDone(live!, 'w1', now));
        return read;
      },
    });
    let built = 0;
    await updateRotation(racing, (live) => {
      built++;
      return markDone(live!, 'cp1', now);
    });
    // the first build, the update's own, and one more on the state re-read after the refused stale write
    expect(built).toBe(3);
    const state = await readRotation(admin);
    expect([state?.nodes.cp1?.done, state?.nodes.w1?.done]).toEqual(['trust-both', 'trust-both']);
  });

  test('a second start is refused; status exits 4 while the rotation is under way; abort turns it to a rollback', async () => {
    const again = await tsadmErrorOf(runStart(await runtime(), { items: ['cluster'], saGraceSeconds: 0, nodeName: 'cp1', rotationKeyFile: path.join(root.dir, 'elsewhere', 'second.key') }));
    expect(again.message).toMatch(new RegExp(id));
    const pending = await tsadmErrorOf(runStatus(await runtime(), { json: true }));
    expect(pending.exitCode).toBe(4);
    const aborted = await runAbort(await runtime(), {});
    expect(aborted).toEqual({ id, phase: 'rollback' });
  });
});
