import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeWithApiServer, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { openssl } from '../../helpers/pki-test-utils.js';
import { events, runCli } from '../../helpers/run-cli.js';
import { MemoryReporter } from '../../helpers/phase-ctx.js';
import { createApiSeam } from '../../../src/kube/seam.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import type { ApprovalPlanStep, Plan } from '../../../src/plan/types.js';

test('an --interval under one second is a usage error (exit 3), said in one line', async () => {
  const r = await runCli(['certs', 'approve-kubelet-serving', '--watch', '--interval', '500ms', '--kubeconfig', '/nonexistent/admin.conf']);
  expect(r.code).toBe(3);
  expect(r.stderr).toContain('error: --interval "500ms" is not a duration of at least 1s');
});

test('a missing kubeconfig is a one-line error naming it', async () => {
  const r = await runCli(['certs', 'approve-kubelet-serving', '--kubeconfig', '/nonexistent/admin.conf']);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("couldn't read the kubeconfig /nonexistent/admin.conf");
});

/** The command end to end in-process against a real kube-apiserver v1.20.2; its stored conditions are the oracle. */
describeWithApiServer('tsadm certs approve-kubelet-serving on a real API server', () => {
  let server: TestApiServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tsadm-csr-cli-'));
    server = await startApiServer();
    // The approver reads the names no node may claim from kubeadm-config (src/csr-approval/reserved-names.ts); without it a pass decides nothing.
    expect((await server.request('POST', '/api/v1/namespaces/kube-system/configmaps', {
      auth: 'admin',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kubeadm-config', namespace: 'kube-system' }, data: { ClusterConfiguration: 'apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterConfiguration\nkubernetesVersion: v1.20.2\nnetworking:\n  dnsDomain: cluster.local\n  serviceSubnet: 10.96.0.0/12\n' } },
    })).status).toBe(201);
    expect((await server.request('POST', '/api/v1/nodes', { auth: 'admin', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'w1' } } })).status).toBe(201);
    expect((await server.request('PATCH', '/api/v1/nodes/w1/status', {
      auth: 'admin', contentType: 'application/merge-patch+json', body: { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.11' }] } },
    })).status).toBe(200);
    // Created by the admin in w1's name: the requester is not the node, so it must be denied.
    const key = path.join(dir, 'k.key');
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
    const pem = openssl(['req', '-new', '-key', key, '-subj', '/O=system:nodes/CN=system:node:w1', '-addext', 'subjectAltName=IP:10.0.0.11']);
    const created = await server.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', {
      auth: 'admin',
      body: { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'not-from-w1' }, spec: { request: Buffer.from(pem).toString('base64'), signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'server auth'] } },
    });
    expect(created.status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  test('-o json: a pure event stream ending in the result; the API server holds the Denied condition', async () => {
    const r = await runCli(['certs', 'approve-kubelet-serving', '--kubeconfig', server.adminKubeconfigPath, '-o', 'json']);
    expect(`${r.code}\n${r.stderr}`).toMatch(/^0\n/);
    const all = events(r.stdout);
    const result = all[all.length - 1];
    expect(result).toMatchObject({ type: 'result', command: 'certs approve-kubelet-serving', ok: true, data: { approved: [], denied: [{ csr: 'not-from-w1', reason: 'RequesterNotNode' }], dryRun: false } });
    expect(all).toContainEqual(expect.objectContaining({ type: 'object', action: 'updated', kind: 'CertificateSigningRequest', name: 'not-from-w1' }));
    const stored = await server.request('GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests/not-from-w1', { auth: 'admin' });
    expect((stored.body as unknown as { status: { conditions: { type: string; reason: string }[] } }).status.conditions).toMatchObject([{ type: 'Denied', reason: 'RequesterNotNode' }]);
  }, 60_000);
  test('passes take turns through the Lease kube-system/tsadm-kubelet-serving-approver: held by another control plane, nothing is decided; once free, the pass runs', async () => {
    const key = path.join(dir, 'k2.key');
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
    const pem = openssl(['req', '-new', '-key', key, '-subj', '/O=system:nodes/CN=system:node:w1', '-addext', 'subjectAltName=IP:10.0.0.11']);
    expect((await server.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', {
      auth: 'admin',
      body: { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'while-locked' }, spec: { request: Buffer.from(pem).toString('base64'), signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'server auth'] } },
    })).status).toBe(201);
    const leasePath = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';
    // The first test's pass made the Lease and released it (no holder); another control plane takes it now.
    const micro = (d: Date): string => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    const held = await server.request('PATCH', `${leasePath}/tsadm-kubelet-serving-approver`, {
      auth: 'admin', contentType: 'application/merge-patch+json',
      body: { spec: { holderIdentity: 'other-control-plane', leaseDurationSeconds: 600, acquireTime: micro(new Date()), renewTime: micro(new Date()) } },
    });
    expect(held.status).toBe(200);
    const conditions = async (): Promise<unknown> => ((await server.request('GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests/while-locked', { auth: 'admin' })).body as unknown as { status?: { conditions?: unknown } }).status?.conditions;

    const locked = await runCli(['certs', 'approve-kubelet-serving', '--kubeconfig', server.adminKubeconfigPath, '-o', 'json']);
    expect(locked.code).toBe(0);
    const lockedResult = events(locked.stdout).at(-1);
    expect(lockedResult).toMatchObject({ type: 'result', ok: true, data: { ran: false, approved: [], denied: [] } });
    expect(await conditions()).toBeUndefined();

    expect((await server.request('DELETE', `${leasePath}/tsadm-kubelet-serving-approver`, { auth: 'admin' })).status).toBe(200);
    const free = await runCli(['certs', 'approve-kubelet-serving', '--kubeconfig', server.adminKubeconfigPath, '-o', 'json']);
    expect(free.code).toBe(0);
    expect(events(free.stdout).at(-1)).toMatchObject({ type: 'result', ok: true, data: { ran: true, denied: [{ csr: 'while-locked', reason: 'RequesterNotNode' }] } });
    expect(await conditions()).toMatchObject([{ type: 'Denied', reason: 'RequesterNotNode' }]);
  }, 60_000);

  describe('--plan: one pass recorded, written later by tsadm apply', () => {
    const csrPath = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
    const conditionsOf = async (name: string): Promise<{ type: string; reason: string }[] | undefined> =>
      ((await server.request('GET', `${csrPath}/${name}`, { auth: 'admin' })).body as unknown as { status?: { conditions?: { type: string; reason: string }[] } }).status?.conditions;
    const pem = (name: string, san: string): string => {
      const key = path.join(dir, `${name}.key`);
      openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
      return Buffer.from(openssl(['req', '-new', '-key', key, '-subj', '/O=system:nodes/CN=system:node:w1', '-addext', `subjectAltName=${san}`])).toString('base64');
    };
    const csr = (name: string, san: string) => ({
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
      spec: { request: pem(name, san), signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'key encipherment', 'server auth'] },
    });
    /** As the node w1 itself (its client certificate), so the request can be approved. */
    async function createAsW1(name: string, san: string): Promise<void> {
      const w1 = await createApiSeam({ readFile: () => Promise.resolve(undefined) }, false).open({ text: server.clientKubeconfig('system:node:w1', 'system:nodes'), source: 'node w1' }, { log: new PhaseLogger(new MemoryReporter()) });
      try {
        await w1.create(csr(name, san));
      } finally {
        w1.close();
      }
    }
    async function planPass(): Promise<{ file: string; plan: Plan }> {
      const file = path.join(mkdtempSync(path.join(dir, 'plan-')), 'pass.json');
      const r = await runCli(['certs', 'approve-kubelet-serving', '--kubeconfig', server.adminKubeconfigPath, '--plan', file]);
      expect(`${r.code}\n${r.stderr}`).toMatch(/^0\n/);
      return { file, plan: JSON.parse(readFileSync(file, 'utf8')) as Plan };
    }

    test('the plan holds each decision and nothing else (no Lease); apply writes exactly them, and again changes nothing', async () => {
      await createAsW1('plan-good', 'IP:10.0.0.11');
      expect((await server.request('POST', csrPath, { auth: 'admin', body: csr('plan-forged', 'IP:10.0.0.11') })).status).toBe(201);
      const { file, plan } = await planPass();
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // The planning run decided nothing.
      expect(await conditionsOf('plan-good')).toBeUndefined();
      expect(await conditionsOf('plan-forged')).toBeUndefined();
      expect(plan.command).toBe('certs approve-kubelet-serving');
      const steps = plan.steps as ApprovalPlanStep[];
      // In the order the API server lists the requests (by name).
      expect(steps.map((s) => [s.type, s.verb, s.name, s.decision.type, s.decision.reason])).toEqual([
        ['object', 'approval', 'plan-forged', 'Denied', 'RequesterNotNode'],
        ['object', 'approval', 'plan-good', 'Approved', 'TsadmNodeAddressesMatch'],
      ]);
      // Each request is held at the resourceVersion its decision was made on.
      for (const s of steps) {
        const rv = (s.object as { metadata: { resourceVersion?: string } }).metadata.resourceVersion;
        expect(rv).toMatch(/^\d+$/);
        expect(plan.preconditions.objects).toContainEqual(expect.objectContaining({ kind: 'CertificateSigningRequest', name: s.name, resourceVersion: rv }));
      }

      const applied = await runCli(['apply', file]);
      expect(`${applied.code}\n${applied.stderr}`).toMatch(/^0\n/);
      expect(await conditionsOf('plan-good')).toMatchObject([{ type: 'Approved', reason: 'TsadmNodeAddressesMatch' }]);
      expect(await conditionsOf('plan-forged')).toMatchObject([{ type: 'Denied', reason: 'RequesterNotNode' }]);
      // Applied again (an apply that stopped half-way is re-run): the decisions are there, nothing is written twice.
      const again = await runCli(['apply', file]);
      expect(`${again.code}\n${again.stderr}`).toMatch(/^0\n/);
      expect(await conditionsOf('plan-good')).toHaveLength(1);
      expect(await conditionsOf('plan-forged')).toHaveLength(1);
    }, 90_000);

    test('a request that changed after the plan was made is not decided: apply refuses, naming it', async () => {
      expect((await server.request('POST', csrPath, { auth: 'admin', body: csr('plan-raced', 'IP:10.0.0.11') })).status).toBe(201);
      const { file } = await planPass();
      expect((await server.request('PATCH', `${csrPath}/plan-raced`, { auth: 'admin', contentType: 'application/merge-patch+json', body: { metadata: { labels: { touched: 'yes' } } } })).status).toBe(200);
      const r = await runCli(['apply', file]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/refusing to apply the plan: 1 thing changed since it was made \(CertificateSigningRequest plan-raced: changed since the plan was made \(resourceVersion \d+ → \d+\)\)/);
      expect(await conditionsOf('plan-raced')).toBeUndefined();
    }, 90_000);

    test('a plan edited to approve a request to another signer is refused before anything is written', async () => {
      const client = { ...csr('plan-client', 'IP:10.0.0.11'), spec: { ...csr('plan-client', 'IP:10.0.0.11').spec, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['digital signature', 'client auth'] } };
      expect((await server.request('POST', csrPath, { auth: 'admin', body: client })).status).toBe(201);
      expect((await server.request('POST', csrPath, { auth: 'admin', body: csr('plan-edited', 'IP:10.0.0.11') })).status).toBe(201);
      const { file, plan } = await planPass();
      // The pass leaves other signers alone, so their requests are never in a plan; an edit puts one there.
      const names = plan.steps.map((s) => (s as ApprovalPlanStep).name);
      expect(names).toContain('plan-edited');
      expect(names).not.toContain('plan-client');
      const step = plan.steps.find((s) => (s as ApprovalPlanStep).name === 'plan-edited') as ApprovalPlanStep;
      const live = (await server.request('GET', `${csrPath}/plan-client`, { auth: 'admin' })).body as unknown as Record<string, unknown>;
      const forged: ApprovalPlanStep = { ...step, name: 'plan-client', decision: { ...step.decision, type: 'Approved' }, object: { ...live, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'x' }] } } };
      writeFileSync(file, JSON.stringify({ ...plan, steps: [forged] }), { mode: 0o600 });
      const r = await runCli(['apply', file]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('steps[0]: an approval of a request to signer "kubernetes.io/kube-apiserver-client" is not one tsadm plans (only kubernetes.io/kubelet-serving); refusing to apply the plan');
      expect(await conditionsOf('plan-client')).toBeUndefined();
    }, 90_000);

    test('--plan with --watch is a usage error', async () => {
      const r = await runCli(['certs', 'approve-kubelet-serving', '--watch', '--kubeconfig', server.adminKubeconfigPath, '--plan', path.join(dir, 'never.json')]);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('--plan records one pass: it cannot go with --watch');
    });
  });
});
