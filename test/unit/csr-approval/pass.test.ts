import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { describeWithApiServer, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { MemoryReporter } from '../../helpers/phase-ctx.js';
import { openssl } from '../../helpers/pki-test-utils.js';
import { approvalPass, runApprover, type PassGuard } from '../../../src/csr-approval/pass.js';
import { createApiSeam } from '../../../src/kube/seam.js';
import type { KubeApi, KubeObject } from '../../../src/kube/types.js';
import { formatPlain } from '../../../src/log/plain-reporter.js';
import { PhaseLogger } from '../../../src/log/logger.js';

/**
 * The approval pass against a real kube-apiserver v1.20.2 (Node and RBAC authorizers,
 * NodeRestriction): the Nodes carry status.addresses, the CSRs are created by the node users
 * themselves (client certificates system:node:<name>, O=system:nodes), and the API server's
 * stored conditions are the oracle. kube-system/kubeadm-config is the one kubeadm v1.20.2 itself
 * uploaded (its dry run's objects: controlPlaneEndpoint cp.example.com:6443, serviceSubnet
 * 10.96.0.0/12): the names no node may claim are read from it.
 */
const KUBEADM_CONFIG = (yaml.loadAll(readFileSync(path.join(process.cwd(), 'test/fixtures/kubeadm-dry-run/kubeadm-1.20-cluster-objects.yaml'), 'utf8')) as KubeObject[])
  .find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'kubeadm-config') as KubeObject;

describeWithApiServer('approve-kubelet-serving pass on a real API server', () => {
  let server: TestApiServer;
  let admin: KubeApi;
  let dryAdmin: KubeApi;
  let w1: KubeApi;
  let dir: string;
  let reporter: MemoryReporter;
  let log: PhaseLogger;

  const openAs = (text: string, source: string, dryRun = false): Promise<KubeApi> =>
    createApiSeam({ readFile: () => Promise.resolve(undefined) }, dryRun).open({ text, source }, { log });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tsadm-csr-pass-'));
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', path.join(dir, 'k.key')]);
    server = await startApiServer();
    reporter = new MemoryReporter();
    log = new PhaseLogger(reporter);
    admin = await openAs(server.adminKubeconfig, 'admin');
    dryAdmin = await openAs(server.adminKubeconfig, 'admin (dry run)', true);
    w1 = await openAs(server.clientKubeconfig('system:node:w1', 'system:nodes'), 'node w1');
    expect((await server.request('POST', '/api/v1/namespaces/kube-system/configmaps', { auth: 'admin', body: KUBEADM_CONFIG })).status).toBe(201);
    for (const [name, ip] of [['w1', '10.0.0.11'], ['w2', '10.0.0.12']] as const) {
      expect((await server.request('POST', '/api/v1/nodes', { auth: 'admin', body: { apiVersion: 'v1', kind: 'Node', metadata: { name } } })).status).toBe(201);
      const patched = await server.request('PATCH', `/api/v1/nodes/${name}/status`, {
        auth: 'admin', contentType: 'application/merge-patch+json',
        body: { status: { addresses: [{ type: 'InternalIP', address: ip }, { type: 'Hostname', address: name }] } },
      });
      expect(patched.status).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    admin?.close();
    dryAdmin?.close();
    w1?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  function request(subject: string, san: string): string {
    return Buffer.from(openssl(['req', '-new', '-key', path.join(dir, 'k.key'), '-subj', subject, '-addext', `subjectAltName=${san}`])).toString('base64');
  }

  function csrObject(name: string, san: string, o: { signerName?: string; usages?: string[]; subject?: string } = {}): KubeObject {
    return {
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
      spec: {
        request: request(o.subject ?? '/O=system:nodes/CN=system:node:w1', san),
        signerName: o.signerName ?? 'kubernetes.io/kubelet-serving',
        usages: o.usages ?? ['digital signature', 'key encipherment', 'server auth'],
      },
    };
  }

  /** The conditions the API server stored, read with raw admin requests. */
  async function conditions(name: string): Promise<{ type: string; status: string; reason?: string; message?: string }[]> {
    const res = await server.request('GET', `/apis/certificates.k8s.io/v1/certificatesigningrequests/${name}`, { auth: 'admin' });
    expect(res.status).toBe(200);
    return ((res.body as unknown as { status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] } }).status?.conditions) ?? [];
  }

  test('approves the node\'s own request, denies forged ones, leaves other signers alone; a second pass changes nothing', async () => {
    await w1.create(csrObject('w1-good', 'DNS:w1,IP:10.0.0.11'));
    await w1.create(csrObject('w1-forged-ip', 'DNS:w1,IP:10.0.0.12'));
    await w1.create(csrObject('w1-client-usage', 'DNS:w1', { usages: ['digital signature', 'key encipherment', 'client auth'] }));
    await admin.create(csrObject('admin-for-w1', 'DNS:w1,IP:10.0.0.11'));
    await admin.create(csrObject('other-signer', 'DNS:w1', { signerName: 'kubernetes.io/kube-apiserver-client', usages: ['digital signature', 'client auth'], subject: '/CN=someone' }));

    const summary = await approvalPass(admin, { log, dryRun: false });
    expect(summary.approved.map((r) => r.csr)).toEqual(['w1-good']);
    expect(summary.denied.map((r) => `${r.csr} ${r.reason}`).sort()).toEqual(['admin-for-w1 RequesterNotNode', 'w1-client-usage Usages', 'w1-forged-ip NameNotNodeAddress']);
    expect(summary.otherSigners).toBe(1);

    expect(await conditions('w1-good')).toMatchObject([{ type: 'Approved', status: 'True', reason: 'TsadmNodeAddressesMatch' }]);
    const forged = await conditions('w1-forged-ip');
    expect(forged).toMatchObject([{ type: 'Denied', status: 'True', reason: 'NameNotNodeAddress' }]);
    expect(forged[0]?.message).toContain('IP:10.0.0.12');
    expect(await conditions('admin-for-w1')).toMatchObject([{ type: 'Denied', status: 'True', reason: 'RequesterNotNode' }]);
    expect(await conditions('other-signer')).toEqual([]);

    const again = await approvalPass(admin, { log, dryRun: false });
    expect(again).toMatchObject({ approved: [], denied: [], alreadyDecided: 4, otherSigners: 1, ran: true });
  }, 60_000);

  test('--dry-run says what it would do and writes nothing', async () => {
    await w1.create(csrObject('w1-dry', 'DNS:w1'));
    reporter.events.length = 0;
    const summary = await approvalPass(dryAdmin, { log, dryRun: true });
    expect(summary.approved.map((r) => r.csr)).toEqual(['w1-dry']);
    expect(await conditions('w1-dry')).toEqual([]);
    const lines = reporter.events.flatMap((e) => (e.type === 'log' ? [e.message] : []));
    expect(lines.some((l) => l.includes('[dry-run] Would approve CertificateSigningRequest "w1-dry"'))).toBe(true);
    await approvalPass(admin, { log, dryRun: false });
    expect(await conditions('w1-dry')).toMatchObject([{ type: 'Approved', status: 'True' }]);
  }, 60_000);

  test('a guard that does not grant the lock keeps the pass from acting; one that does lets it', async () => {
    await w1.create(csrObject('w1-guarded', 'IP:10.0.0.11'));
    const refused: PassGuard = () => Promise.resolve(undefined);
    expect(await approvalPass(admin, { log, dryRun: false, guard: refused })).toMatchObject({ ran: false, approved: [] });
    expect(await conditions('w1-guarded')).toEqual([]);
    let held = 0;
    const granted: PassGuard = async (fn) => { held++; return fn(); };
    expect((await approvalPass(admin, { log, dryRun: false, guard: granted })).approved.map((r) => r.csr)).toEqual(['w1-guarded']);
    expect(held).toBe(1);
  }, 60_000);

  test('--watch approves a request made while it runs and stops when told', async () => {
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => { stop = resolve; });
    let approvedWhileWatching = '';
    const watching = runApprover(admin, {
      log, dryRun: false, intervalMs: 200, stopped,
      onPass: (s) => { if (s.approved.length > 0) { approvedWhileWatching = s.approved[0]!.csr; stop(); } },
    });
    await new Promise((r) => setTimeout(r, 300));
    await w1.create(csrObject('w1-watched', 'DNS:w1'));
    const passes = await watching;
    expect(passes).toBeGreaterThan(1);
    expect(approvedWhileWatching).toBe('w1-watched');
    expect(await conditions('w1-watched')).toMatchObject([{ type: 'Approved', status: 'True' }]);
  }, 60_000);

  test('an IP that another Node also lists in its status is approved for neither node', async () => {
    const setW2Addresses = async (addresses: { type: string; address: string }[]): Promise<void> => {
      const res = await server.request('PATCH', '/api/v1/nodes/w2/status', { auth: 'admin', contentType: 'application/merge-patch+json', body: { status: { addresses } } });
      expect(res.status).toBe(200);
    };
    // w2's kubelet claims w1's IP as an ExternalIP (a kubelet writes its own Node's status).
    await setW2Addresses([{ type: 'InternalIP', address: '10.0.0.12' }, { type: 'ExternalIP', address: '10.0.0.11' }, { type: 'Hostname', address: 'w2' }]);
    try {
      await w1.create(csrObject('w1-shared-ip', 'DNS:w1,IP:10.0.0.11'));
      const summary = await approvalPass(admin, { log, dryRun: false });
      expect(summary).toMatchObject({ approved: [], denied: [{ csr: 'w1-shared-ip', node: 'w1', reason: 'AddressOfAnotherNode' }] });
      const denied = await conditions('w1-shared-ip');
      expect(denied).toMatchObject([{ type: 'Denied', status: 'True', reason: 'AddressOfAnotherNode' }]);
      expect(denied[0]?.message).toContain('IP:10.0.0.11 (Node "w2")');
    } finally {
      await setW2Addresses([{ type: 'InternalIP', address: '10.0.0.12' }, { type: 'Hostname', address: 'w2' }]);
    }
    // Once w2 no longer claims it, w1's next request is approved.
    await w1.create(csrObject('w1-after', 'DNS:w1,IP:10.0.0.11'));
    expect((await approvalPass(admin, { log, dryRun: false })).approved.map((r) => r.csr)).toEqual(['w1-after']);
  }, 60_000);
  test('a node that lists the API server\'s names in its own status gets no certificate for them', async () => {
    // As w1's kubelet could write them into its own Node's status (NodeRestriction lets it).
    const addresses = [{ type: 'InternalIP', address: '10.0.0.11' }, { type: 'Hostname', address: 'w1' }];
    const claimed = [...addresses, { type: 'InternalDNS', address: 'kubernetes.default.svc' }, { type: 'ExternalDNS', address: 'cp.example.com' }, { type: 'ExternalIP', address: '10.96.0.1' }];
    expect((await server.request('PATCH', '/api/v1/nodes/w1/status', { auth: 'admin', contentType: 'application/merge-patch+json', body: { status: { addresses: claimed } } })).status).toBe(200);
    try {
      await w1.create(csrObject('w1-api-names', 'DNS:w1,DNS:kubernetes.default.svc,DNS:cp.example.com,IP:10.0.0.11,IP:10.96.0.1'));
      const summary = await approvalPass(admin, { log, dryRun: false });
      expect(summary).toMatchObject({ approved: [], denied: [{ csr: 'w1-api-names', node: 'w1', reason: 'ReservedName' }] });
      const denied = await conditions('w1-api-names');
      expect(denied).toMatchObject([{ type: 'Denied', status: 'True', reason: 'ReservedName' }]);
      for (const said of ['DNS:kubernetes.default.svc is the API server\'s in-cluster name', 'DNS:cp.example.com is controlPlaneEndpoint', 'IP:10.96.0.1 is the kubernetes Service IP']) {
        expect(denied[0]?.message).toContain(said);
      }
    } finally {
      expect((await server.request('PATCH', '/api/v1/nodes/w1/status', { auth: 'admin', contentType: 'application/merge-patch+json', body: { status: { addresses } } })).status).toBe(200);
    }
  }, 60_000);

  test('without kube-system/kubeadm-config the pass decides nothing and fails, naming what is missing (fail closed)', async () => {
    expect((await server.request('DELETE', '/api/v1/namespaces/kube-system/configmaps/kubeadm-config', { auth: 'admin' })).status).toBe(200);
    try {
      await w1.create(csrObject('w1-no-config', 'DNS:w1,IP:10.0.0.11'));
      await expect(approvalPass(admin, { log, dryRun: false })).rejects.toThrow(/ClusterConfiguration could not be read .*kubeadm-config.*no kubelet-serving request was decided/);
      expect(await conditions('w1-no-config')).toEqual([]);
    } finally {
      expect((await server.request('POST', '/api/v1/namespaces/kube-system/configmaps', { auth: 'admin', body: KUBEADM_CONFIG })).status).toBe(201);
    }
    // Once it is back, the request left pending is approved.
    expect((await approvalPass(admin, { log, dryRun: false })).approved.map((r) => r.csr)).toEqual(['w1-no-config']);
  }, 60_000);

  test('a SAN holding a newline and ESC forges no log line and reaches neither the terminal nor the CSR\'s condition raw', async () => {
    // The SAN as raw IA5String bytes (openssl's DER: form), which Go's CSR parser in the API server accepts.
    const forged = 'w1\n[csr] Approving CertificateSigningRequest "csr-evil" (TsadmNodeAddressesMatch): tsadm: requested by Node "w1"\x1b[2J';
    const tlv = (tag: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([tag, body.length]), body]);
    const der = tlv(0x30, Buffer.concat([tlv(0x82, Buffer.from('w1')), tlv(0x82, Buffer.from(forged, 'latin1'))])).toString('hex');
    await w1.create(csrObject('w1-forged-line', `DER:${der}`));
    reporter.events.length = 0;
    const summary = await approvalPass(admin, { log, dryRun: false });
    expect(summary.approved).toEqual([]);
    expect(summary.denied.map((r) => r.csr)).toEqual(['w1-forged-line']);
    const logs = reporter.events.flatMap((e) => (e.type === 'log' ? [e] : []));
    expect(logs.length).toBeGreaterThan(0);
    for (const e of logs) {
      // eslint-disable-next-line no-control-regex -- the point: no control character in a message
      expect(e.message).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
      const line = formatPlain(e, 0) ?? '';
      expect(line.split('\n')).toHaveLength(1);
      expect(line).not.toContain('\x1b');
    }
    // The only line about it is its denial; the forged "Approving" is inside it, escaped.
    const about = logs.filter((e) => e.prefix === 'csr' && e.message.includes('w1-forged-line'));
    expect(about).toHaveLength(1);
    expect(about[0]?.message).toMatch(/^Denying CertificateSigningRequest "w1-forged-line" \(/);
    expect(logs.some((e) => e.message.includes('Approving') && !e.message.startsWith('Denying'))).toBe(false);
    const stored = await conditions('w1-forged-line');
    expect(stored).toMatchObject([{ type: 'Denied', status: 'True' }]);
    // eslint-disable-next-line no-control-regex -- as above
    expect(stored[0]?.message).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  }, 60_000);
});
