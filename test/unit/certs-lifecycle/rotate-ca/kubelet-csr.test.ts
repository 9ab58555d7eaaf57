/**
 * A worker's kubelet certificates at sign-new through CSRs: the requests' content judged by
 * openssl, the check of what a signer issued, and the whole exchange over an in-memory API in
 * which the test acts as the controller-manager (approves, and signs with openssl and the new CA).
 * The same exchange against a real kube-apiserver and kube-controller-manager v1.20.2 is in
 * test/integration/rotate-ca-cluster.test.ts.
 */
import { lstatSync, mkdirSync, readFileSync, readlinkSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';
import { initCtxFor } from '../../../helpers/phase-ctx.js';
import { openssl, pkiTestConfig, verifyWith } from '../../../helpers/pki-test-utils.js';
import { tsadmErrorOf } from '../../../helpers/tsadm-error.js';
import { csrNameFor, issuedProblem, kubeletRequestFor, requestKubeletPairs, KUBELET_CLIENT_SIGNER } from '../../../../src/certs-lifecycle/rotate-ca/kubelet-csr.js';
import { rotationDir } from '../../../../src/certs-lifecycle/rotate-ca/node-files.js';
import type { KubeApi, KubeObject } from '../../../../src/kube/types.js';
import { parseCertificatePem } from '../../../../src/pki/certificate.js';
import { createCsr } from '../../../../src/pki/csr.js';
import { generateKeyPair, parsePrivateKeyPem } from '../../../../src/pki/keys.js';

const KUBELET_PKI = '/var/lib/kubelet/pki';
const roots: TempRoot[] = [];
afterAll(() => {
  for (const r of roots) r.cleanup();
});

function root(): TempRoot {
  const r = tempRoot();
  roots.push(r);
  return r;
}

/** A CA made by openssl in DIR: NAME.crt, NAME.key. */
function opensslCa(dir: string, name: string): { crt: string; key: string } {
  mkdirSync(dir, { recursive: true });
  const crt = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', crt, '-days', '2', '-subj', `/CN=${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,digitalSignature,keyCertSign']);
  return { crt, key };
}

/** openssl signs the request REQ_PEM with CA as the controller-manager's csrsigning would (the usage EXT). */
function opensslSign(dir: string, ca: { crt: string; key: string }, reqPem: string, ext: string): string {
  const base = path.join(dir, `signed-${Math.random().toString(36).slice(2)}`);
  writeFileSync(`${base}.csr`, reqPem);
  writeFileSync(`${base}.ext`, `${ext}\n`);
  openssl(['x509', '-req', '-in', `${base}.csr`, '-CA', ca.crt, '-CAkey', ca.key, '-CAcreateserial', '-days', '1', '-extfile', `${base}.ext`, '-out', `${base}.crt`]);
  return readFileSync(`${base}.crt`, 'utf8');
}

describe('the requests', () => {
  test('client: O=system:nodes, CN=system:node:<node>, no SANs, the kubelet signer and usages; openssl verifies its self-signature', async () => {
    const r = root();
    const old = opensslCa(r.at('/s'), 'old');
    const current = parseCertificatePem(opensslSign(r.at('/s'), old, openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', r.at('/s/k.pem'), '-subj', '/O=system:nodes/CN=system:node:w1']), 'extendedKeyUsage=clientAuth'));
    const req = kubeletRequestFor('kubelet-client-certificate', 'w1', current);
    expect([req.signerName, req.usages]).toEqual([KUBELET_CLIENT_SIGNER, ['digital signature', 'key encipherment', 'client auth']]);
    const { privateKey } = await generateKeyPair('ECDSA-P256');
    const text = openssl(['req', '-noout', '-verify', '-text'], createCsr(req.template, privateKey).pem);
    expect(text).toMatch(/Subject: O\s?=\s?system:nodes, CN\s?=\s?system:node:w1/);
    expect(text).toMatch(/ASN1 OID: prime256v1/);
    expect(text).not.toMatch(/Subject Alternative Name/);
  });

  test('serving: the kubelet-serving signer, server auth, and the SANs of the certificate in use', async () => {
    const r = root();
    const old = opensslCa(r.at('/s'), 'old');
    const current = parseCertificatePem(opensslSign(r.at('/s'), old, openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', r.at('/s/k.pem'), '-subj', '/O=system:nodes/CN=system:node:w1']),
      'extendedKeyUsage=serverAuth\nsubjectAltName=DNS:w1,IP:10.0.0.21'));
    const req = kubeletRequestFor('kubelet-serving-certificate', 'w1', current);
    expect([req.signerName, req.usages]).toEqual(['kubernetes.io/kubelet-serving', ['digital signature', 'key encipherment', 'server auth']]);
    const { privateKey } = await generateKeyPair('ECDSA-P256');
    const text = openssl(['req', '-noout', '-verify', '-text'], createCsr(req.template, privateKey).pem);
    expect(text).toMatch(/DNS:w1, IP Address:10\.0\.0\.21/);
  });

  test('the name: the rotation, the certificate, the key', async () => {
    const [a, b] = [await generateKeyPair('ECDSA-P256'), await generateKeyPair('ECDSA-P256')];
    expect(csrNameFor('r1', 'kubelet-client-certificate', a.privateKey)).toMatch(/^tsadm-rotate-ca-r1-client-[0-9a-f]{16}$/);
    expect(csrNameFor('r1', 'kubelet-client-certificate', a.privateKey)).toBe(csrNameFor('r1', 'kubelet-client-certificate', a.privateKey));
    expect(csrNameFor('r1', 'kubelet-client-certificate', a.privateKey)).not.toBe(csrNameFor('r1', 'kubelet-client-certificate', b.privateKey));
    expect(csrNameFor('r1', 'kubelet-serving-certificate', a.privateKey)).toMatch(/^tsadm-rotate-ca-r1-serving-/);
  });
});

describe('what the signer issued', () => {
  test('taken only when the new CA signed it, for the requested key, subject and usage', async () => {
    const r = root();
    const [old, neu] = [opensslCa(r.at('/s'), 'old'), opensslCa(r.at('/s'), 'new')];
    const { privateKey } = await generateKeyPair('ECDSA-P256');
    const other = await generateKeyPair('ECDSA-P256');
    const dummy = parseCertificatePem(readFileSync(old.crt));
    const req = kubeletRequestFor('kubelet-client-certificate', 'w1', dummy);
    const reqPem = createCsr(req.template, privateKey).pem;
    const newCa = parseCertificatePem(readFileSync(neu.crt));
    const sign = (ca: typeof old, pem: string, ext = 'extendedKeyUsage=clientAuth'): ReturnType<typeof parseCertificatePem> => parseCertificatePem(opensslSign(r.at('/s'), ca, pem, ext));
    expect(issuedProblem(sign(neu, reqPem), newCa, privateKey, req)).toBeUndefined();
    expect(issuedProblem(sign(old, reqPem), newCa, privateKey, req)).toMatch(/issued by "CN=old", not by the new cluster CA/);
    expect(issuedProblem(sign(neu, createCsr(req.template, other.privateKey).pem), newCa, privateKey, req)).toMatch(/another key/);
    expect(issuedProblem(sign(neu, reqPem, 'extendedKeyUsage=serverAuth'), newCa, privateKey, req)).toMatch(/lacks the clientAuth usage/);
    expect(issuedProblem(sign(neu, createCsr({ ...req.template, subject: { commonName: 'system:node:w2', organization: ['system:nodes'] } }, privateKey).pem), newCa, privateKey, req)).toMatch(/subject/);
  });
});

/**
 * An in-memory certificates API: create and get; the test's "controller" issues a pending request
 * when `issueWith` is set (openssl, the usage its signer gives), or denies it.
 */
class FakeCsrApi {
  readonly objects = new Map<string, KubeObject & { spec: { request: string; signerName: string }; status?: Record<string, unknown> }>();
  readonly calls: string[] = [];
  issueWith: ((reqPem: string, signer: string) => string) | undefined;
  deny = false;
  readonly server = 'https://fake';

  get(kind: string, name: string): Promise<KubeObject | undefined> {
    this.calls.push(`get ${kind} ${name}`);
    const o = this.objects.get(name);
    if (o && !o.status) {
      if (this.deny) o.status = { conditions: [{ type: 'Denied', status: 'True', message: 'not today' }] };
      else if (this.issueWith) o.status = { conditions: [{ type: 'Approved', status: 'True' }], certificate: Buffer.from(this.issueWith(Buffer.from(o.spec.request, 'base64').toString(), o.spec.signerName)).toString('base64') };
    }
    return Promise.resolve(o);
  }

  create(obj: KubeObject): Promise<KubeObject> {
    this.calls.push(`create ${obj.kind} ${obj.metadata.name}`);
    this.objects.set(obj.metadata.name, structuredClone(obj) as never);
    return Promise.resolve(obj);
  }
}

describe('a worker at sign-new', () => {
  let r: TempRoot;
  let old: { crt: string; key: string };
  let neu: { crt: string; key: string };

  /** The kubelet's store of R: <prefix>-2026-01-01-00-00-00.pem from the old CA and the relative -current link. */
  function kubeletPair(prefix: string, subj: string, ext: string): void {
    const reqPem = openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', r.at(`/s/${prefix}.key`), '-subj', subj]);
    mkdirSync(r.at(KUBELET_PKI), { recursive: true });
    const dated = `${prefix}-2026-01-01-00-00-00.pem`;
    writeFileSync(r.at(`${KUBELET_PKI}/${dated}`), opensslSign(r.at('/s'), old, reqPem, ext) + readFileSync(r.at(`/s/${prefix}.key`), 'utf8'), { mode: 0o600 });
    symlinkSync(dated, r.at(`${KUBELET_PKI}/${prefix}-current.pem`));
  }

  beforeAll(() => {
    r = root();
    old = opensslCa(r.at('/s'), 'old');
    neu = opensslCa(r.at('/s'), 'new');
    kubeletPair('kubelet-client', '/O=system:nodes/CN=system:node:w1', 'extendedKeyUsage=clientAuth');
    kubeletPair('kubelet-server', '/O=system:nodes/CN=system:node:w1', 'extendedKeyUsage=serverAuth\nsubjectAltName=DNS:w1');
  });

  const run = (api: FakeCsrApi, o: { dryRun?: boolean; timeoutMs?: number } = {}): Promise<string[]> => {
    const { ctx } = initCtxFor(pkiTestConfig(), r.dir, o.dryRun ? { dryRun: true } : {});
    return requestKubeletPairs(ctx, {
      id: 'r1', node: 'w1', actions: ['kubelet-client-certificate', 'kubelet-serving-certificate'], ca: parseCertificatePem(readFileSync(neu.crt)),
      api: api as unknown as KubeApi, dryRun: o.dryRun ?? false, timeoutMs: o.timeoutMs ?? 5000, intervalMs: 10,
    });
  };
  const staged = (): string[] => readdirSync(r.at(`${rotationDir('r1')}/kubelet`)).sort();

  test('dry run: requests and writes nothing', async () => {
    const api = new FakeCsrApi();
    expect(await run(api, { dryRun: true })).toEqual([]);
    expect(api.calls).toEqual([]);
    expect(readlinkSync(r.at(`${KUBELET_PKI}/kubelet-client-current.pem`))).toBe('kubelet-client-2026-01-01-00-00-00.pem');
  });

  test('nobody approves: a one-line timeout naming what to check; the staged key stays for the re-run', async () => {
    const api = new FakeCsrApi();
    const err = await tsadmErrorOf(run(api, { timeoutMs: 50 }));
    expect(err.message).toMatch(/^CertificateSigningRequest tsadm-rotate-ca-r1-client-[0-9a-f]{16} \(kubernetes\.io\/kube-apiserver-client-kubelet\) was not issued within 0s$/);
    expect(err.hint).toMatch(/kube-controller-manager.*csrapproving and csrsigning.*kubectl get csr/);
    expect(staged()).toEqual(['kubelet-client-certificate.key']);
    expect(statSync(r.at(`${rotationDir('r1')}/kubelet/kubelet-client-certificate.key`)).mode & 0o777).toBe(0o600);
    expect(api.calls.filter((c) => c.startsWith('create'))).toHaveLength(1);
  });

  test('signed by the old CA: refused, its key dropped, nothing stored', async () => {
    const api = new FakeCsrApi();
    api.issueWith = (pem) => opensslSign(r.at('/s'), old, pem, 'extendedKeyUsage=clientAuth');
    const err = await tsadmErrorOf(run(api));
    expect(err.message).toMatch(/was issued, but it was issued by "CN=old"/);
    expect(staged()).toEqual([]);
    expect(readlinkSync(r.at(`${KUBELET_PKI}/kubelet-client-current.pem`))).toBe('kubelet-client-2026-01-01-00-00-00.pem');
  });

  test('the re-run after a kill finds its own pending request, and both pairs are stored from the new CA', async () => {
    // The kill: a request made, its key staged, never issued.
    const first = new FakeCsrApi();
    await run(first, { timeoutMs: 50 }).catch(() => undefined);
    const [pending] = [...first.objects.keys()];
    const stagedKey = readFileSync(r.at(`${rotationDir('r1')}/kubelet/kubelet-client-certificate.key`), 'utf8');
    // The re-run (same cluster) finds that request: no second one for the client certificate.
    first.calls.length = 0;
    first.issueWith = (pem, signer) => opensslSign(r.at('/s'), neu, pem, signer === KUBELET_CLIENT_SIGNER ? 'extendedKeyUsage=clientAuth' : 'extendedKeyUsage=serverAuth\nsubjectAltName=DNS:w1');
    expect(await run(first)).toEqual(['kubelet-client-current.pem', 'kubelet-server-current.pem']);
    expect(first.calls.filter((c) => c.startsWith('create'))).toEqual([expect.stringMatching(/-serving-/)]);
    expect(first.calls).toContain(`get CertificateSigningRequest ${pending}`);
    for (const prefix of ['kubelet-client', 'kubelet-server']) {
      const link = r.at(`${KUBELET_PKI}/${prefix}-current.pem`);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      const target = readlinkSync(link);
      expect(target).toMatch(new RegExp(`^${prefix}-\\d{4}(-\\d\\d){5}\\.pem$`));
      expect(statSync(r.at(`${KUBELET_PKI}/${target}`)).mode & 0o777).toBe(0o600);
      const pair = r.at(`${KUBELET_PKI}/${target}`);
      expect([prefix, verifyWith(neu.crt, pair), verifyWith(old.crt, pair)]).toEqual([prefix, true, false]);
      // The pair's key is the one its certificate certifies (openssl's reading); the old file stays.
      expect(openssl(['pkey', '-in', pair, '-pubout'])).toBe(openssl(['x509', '-in', pair, '-noout', '-pubkey']));
      expect(readFileSync(pair, 'utf8')).toMatch(/-----BEGIN EC PRIVATE KEY-----/);
      expect(verifyWith(old.crt, r.at(`${KUBELET_PKI}/${prefix}-2026-01-01-00-00-00.pem`))).toBe(true);
    }
    // The client pair holds the key staged before the kill.
    const clientPair = readFileSync(r.at(`${KUBELET_PKI}/${readlinkSync(r.at(`${KUBELET_PKI}/kubelet-client-current.pem`))}`), 'utf8');
    expect(parsePrivateKeyPem(clientPair, 'pair').export({ type: 'pkcs8', format: 'pem' })).toBe(parsePrivateKeyPem(stagedKey, 'staged').export({ type: 'pkcs8', format: 'pem' }));
    expect(staged()).toEqual([]);
    // Done: a third run asks for nothing.
    const third = new FakeCsrApi();
    expect(await run(third)).toEqual([]);
    expect(third.calls).toEqual([]);
  });

  test('a denied request: reported, its key dropped so the next run asks anew', async () => {
    const r2 = root();
    const saved = r;
    r = r2;
    try {
      mkdirSync(r.at('/s'), { recursive: true });
      kubeletPair('kubelet-client', '/O=system:nodes/CN=system:node:w1', 'extendedKeyUsage=clientAuth');
      kubeletPair('kubelet-server', '/O=system:nodes/CN=system:node:w1', 'extendedKeyUsage=serverAuth\nsubjectAltName=DNS:w1');
      const api = new FakeCsrApi();
      api.deny = true;
      const err = await tsadmErrorOf(run(api));
      expect(err.message).toMatch(/^CertificateSigningRequest tsadm-rotate-ca-r1-client-\S+ was denied: not today$/);
      expect(staged()).toEqual([]);
    } finally {
      r = saved;
    }
  });
});
