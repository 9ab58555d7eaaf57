/**
 * The API half of `certs rotate-ca` against a real kube-apiserver v1.20.2 (one start for the
 * file): `start` records the rotation's state (ConfigMap kube-system/tsadm-rotate-ca, every Node
 * with its role), stores the new CA key encrypted in the Secret kube-system/tsadm-rotate-ca-keys
 * owned by an expiring bootstrap-token Secret, and grants system:nodes get/update on the state and
 * nothing more; a kubelet's credentials read and record progress; two nodes finishing at once both
 * count (a conflict re-reads); a second start is refused; status exits 4; abort turns to rollback.
 *
 * A worker's kubelet certificates at sign-new (src/certs-lifecycle/rotate-ca/kubelet-csr.ts): the
 * file's one start also runs kube-controller-manager v1.20.2 with its csrapproving and csrsigning
 * controllers, signing with a "new CA" made here (as at sign-new, while the API server still trusts
 * only the old one). The client CSR made with the node's own credentials is approved by the real
 * controller ("selfnodeclient", through kubeadm's node-autoapprove-certificate-rotation binding,
 * created here as tsadm's bootstrap-token phase creates it) and signed by it. Nothing in the
 * controller-manager approves kubelet-serving requests: the test approves that one through the
 * approval subresource as an admin (what `kubectl certificate approve` does); the controller signs it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describeWithApiServer, startApiServer, type TestApiServer } from '../helpers/apiserver.js';
import { captureIo } from '../helpers/cli.js';
import { tempRoot, type TempRoot } from '../helpers/temp-root.js';
import { tsadmErrorOf } from '../helpers/tsadm-error.js';
import { readRotation, updateRotation } from '../../src/certs-lifecycle/rotate-ca/cluster.js';
import { KEYS_SECRET, KEYS_TOKEN_DESCRIPTION, keysFromSecret } from '../../src/certs-lifecycle/rotate-ca/handoff.js';
import { requestKubeletPairs } from '../../src/certs-lifecycle/rotate-ca/kubelet-csr.js';
import { runAbort, runStart, runStatus } from '../../src/certs-lifecycle/rotate-ca/run.js';
import { parseCertificatePem } from '../../src/pki/certificate.js';
import { initCtxFor } from '../helpers/phase-ctx.js';
import { pkiTestConfig, verifyWith } from '../helpers/pki-test-utils.js';
import { markDone, markStarted } from '../../src/certs-lifecycle/rotate-ca/state.js';
import { openKubeApi } from '../../src/kube/open.js';
import { NO_RETRY } from '../../src/kube/retry.js';
import type { KubeApi, KubeObject, SecretObject } from '../../src/kube/types.js';
import { createRuntime, type Runtime } from '../../src/run/runtime.js';

const quiet = { info: () => undefined, warn: () => undefined, debug: () => undefined, event: () => undefined, output: () => undefined } as never;

describeWithApiServer('certs rotate-ca against a real API server', () => {
  let server: TestApiServer;
  let root: TempRoot;
  let id: string;
  let newCa: { crt: string; key: string };
  const runtimes: Runtime[] = [];
  const roots: TempRoot[] = [];

  async function runtime(): Promise<Runtime> {
    const { io } = captureIo();
    const rt = await createRuntime({ rootfs: root.dir }, { io });
    runtimes.push(rt);
    return rt;
  }
  const asUser = (kubeconfigText: string): Promise<KubeApi> => openKubeApi({ kubeconfigText, source: 'test', log: quiet, dryRun: false, retry: NO_RETRY });

  beforeAll(async () => {
    const scratch = tempRoot();
    roots.push(scratch);
    newCa = { crt: scratch.at('/new-ca.crt'), key: scratch.at('/new-ca.key') };
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', newCa.key, '-out', newCa.crt, '-days', '2', '-subj', '/CN=kubernetes@new',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,digitalSignature,keyCertSign'], { stdio: 'ignore' });
    server = await startApiServer({ controllers: ['csrapproving', 'csrsigning'], signingCa: { certPem: readFileSync(newCa.crt, 'utf8'), keyPem: readFileSync(newCa.key, 'utf8') } });
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
    for (const r of roots) r.cleanup();
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

  test('a worker at sign-new: its kubelet\'s CSRs, made with its own credentials, issued by the new CA through the real controller-manager, stored as the kubelet stores them', async () => {
    await server.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { auth: 'admin', body: {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'kubeadm:node-autoapprove-certificate-rotation' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' }],
    } });
    // The worker's kubelet store: both pairs from the cluster (old) CA, the -current links relative.
    const worker = tempRoot();
    roots.push(worker);
    const kubelet = (conf: string): { cert: string; key: string } => {
      const field = (n: string): string => Buffer.from(new RegExp(`${n}: (\\S+)`).exec(conf)?.[1] ?? '', 'base64').toString();
      return { cert: field('client-certificate-data'), key: field('client-key-data') };
    };
    const nodeConf = server.clientKubeconfig('system:node:w1', 'system:nodes');
    // A serving pair as serverTLSBootstrap gets one: the kubelet-serving signer requires a DNS or IP SAN.
    const openssl = (args: string[]): void => void execFileSync('openssl', args, { cwd: worker.dir, stdio: 'ignore' });
    writeFileSync(worker.at('/serving.ext'), 'extendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\nsubjectAltName=DNS:w1,IP:127.0.0.1\n');
    openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'serving.key', '-subj', '/O=system:nodes/CN=system:node:w1', '-out', 'serving.csr']);
    openssl(['x509', '-req', '-in', 'serving.csr', '-CA', `${server.dir}/ca.crt`, '-CAkey', `${server.dir}/ca.key`, '-CAcreateserial', '-days', '1', '-extfile', 'serving.ext', '-out', 'serving.crt']);
    const serving = { cert: readFileSync(worker.at('/serving.crt'), 'utf8'), key: readFileSync(worker.at('/serving.key'), 'utf8') };
    mkdirSync(worker.at('/var/lib/kubelet/pki'), { recursive: true });
    for (const [prefix, pair] of [['kubelet-client', kubelet(nodeConf)], ['kubelet-server', serving]] as const) {
      writeFileSync(worker.at(`/var/lib/kubelet/pki/${prefix}-2026-01-01-00-00-00.pem`), pair.cert + pair.key, { mode: 0o600 });
      symlinkSync(`${prefix}-2026-01-01-00-00-00.pem`, worker.at(`/var/lib/kubelet/pki/${prefix}-current.pem`));
    }
    const admin = await asUser(server.adminKubeconfig);
    // The admin approving kubelet-serving requests as they come (kubectl certificate approve).
    let approving = true;
    const approver = (async () => {
      while (approving) {
        for (const csr of await admin.list<KubeObject & { spec: { signerName: string }; status?: { conditions?: unknown[] } }>('CertificateSigningRequest', undefined)) {
          if (csr.spec.signerName !== 'kubernetes.io/kubelet-serving' || csr.status?.conditions?.length) continue;
          await admin.updateSubresource({ ...csr, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by the test' }] } }, 'approval');
        }
        await new Promise((res) => setTimeout(res, 500));
      }
    })();
    const { ctx } = initCtxFor(pkiTestConfig(), worker.dir);
    const ca = parseCertificatePem(readFileSync(newCa.crt));
    const nodeApi = await asUser(nodeConf);
    let stored: string[];
    try {
      stored = await requestKubeletPairs(ctx, { id, node: 'w1', actions: ['kubelet-client-certificate', 'kubelet-serving-certificate'], ca, api: nodeApi, dryRun: false, timeoutMs: 90_000, intervalMs: 500 });
    } finally {
      approving = false;
      await approver;
    }
    expect(stored).toEqual(['kubelet-client-current.pem', 'kubelet-server-current.pem']);
    const csrs = await admin.list<KubeObject & { spec: { signerName: string; username: string }; status: { conditions: { type: string; reason: string }[] } }>('CertificateSigningRequest', undefined);
    const ours = csrs.filter((c) => c.metadata.name.startsWith(`tsadm-rotate-ca-${id}-`)).map((c) => [c.spec.signerName, c.spec.username, c.status.conditions.map((x) => `${x.type}/${x.reason}`)]);
    // The client request was approved by the controller-manager itself, as the node's own renewal.
    expect(ours).toEqual(expect.arrayContaining([
      ['kubernetes.io/kube-apiserver-client-kubelet', 'system:node:w1', ['Approved/AutoApproved']],
      ['kubernetes.io/kubelet-serving', 'system:node:w1', ['Approved/Test']],
    ]));
    // Why `node` leaves the serving request to the cluster's approver: a kubelet's credentials cannot approve.
    const servingCsr = csrs.find((c) => c.metadata.name.startsWith(`tsadm-rotate-ca-${id}-serving-`));
    await expect(nodeApi.updateSubresource(servingCsr!, 'approval')).rejects.toThrow(/forbidden/i);
    nodeApi.close();
    admin.close();
    for (const prefix of ['kubelet-client', 'kubelet-server']) {
      const pair = worker.at(`/var/lib/kubelet/pki/${readlinkSync(worker.at(`/var/lib/kubelet/pki/${prefix}-current.pem`))}`);
      expect([prefix, verifyWith(newCa.crt, pair), verifyWith(server.dir + '/ca.crt', pair)]).toEqual([prefix, true, false]);
    }
  }, 150_000);
});
