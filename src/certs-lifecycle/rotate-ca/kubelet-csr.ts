/**
 * sign-new on a worker: the kubelet's certificates re-issued by the new cluster CA through the
 * certificates API, as the kubelet rotates them itself. A worker holds no CA key, so it asks:
 *
 * - a new key, ECDSA P-256, as client-go's certificate manager makes one for every rotation
 *   (k8s.io/client-go/util/certificate/certificate_manager.go, generateCSR:
 *   ecdsa.GenerateKey(elliptic.P256()), stored as an "EC PRIVATE KEY" block);
 * - a CSR with the kubelet's template (pkg/kubelet/certificate/kubelet.go,
 *   NewKubeletClientCertificateManager): O=system:nodes, CN=system:node:<node>, signer
 *   kubernetes.io/kube-apiserver-client-kubelet, usages digital signature, key encipherment,
 *   client auth. The v1.20 kubelet asks for key encipherment with its ECDSA key too; later kubelets
 *   ask for it only with an RSA key, and the approver takes both sets
 *   (pkg/apis/certificates/helpers.go, ValidateKubeletClientCSR: kubeletClientRequiredUsages or
 *   kubeletClientRequiredUsagesNoRSA), so the three-usage set is the one every version approves;
 * - created with the node's OWN current credentials (kubelet.conf: still trusted at sign-new, the
 *   API server trusts old and new), so the controller-manager's csrapproving approves it as
 *   "selfnodeclient" (pkg/controller/certificates/approver/sarapprove.go, isSelfNodeClientCert:
 *   spec.username equals the request's CN, plus a SubjectAccessReview for
 *   certificatesigningrequests/selfnodeclient, which kubeadm grants system:nodes through the
 *   kubeadm:node-autoapprove-certificate-rotation binding) and csrsigning signs it with
 *   --cluster-signing-cert-file, the new CA once the control planes have done sign-new (workers
 *   wait for them: ./state.ts nodeMayRun).
 *
 * The serving certificate, when the cluster issued it (serverTLSBootstrap), is asked for the same
 * way with signer kubernetes.io/kubelet-serving, its subject and SANs kept, usages digital signature,
 * key encipherment, server auth (the kubelet's NewKubeletServerCertificateManager). Nothing in the
 * controller-manager approves that signer; `node` does not approve it either: it runs with the
 * kubelet's credentials, which may create and read CSRs but not approve them. It waits for the
 * cluster's approver (`tsadm certs approve-kubelet-serving --watch`, or an admin's
 * `kubectl certificate approve`). A self-signed serving certificate (no serverTLSBootstrap) is the
 * kubelet's own and trusted by nobody's CA: it is left alone (./plan.ts never lists it).
 *
 * Restartable: the new key is staged (0600) under the rotation's directory before its request is
 * made, and the request is named after the rotation and the key, so a re-run after a kill finds its
 * own request (pending or issued) and waits for or takes it; a denied or failed one, or one issued by
 * a CA other than the new one, is reported and its key dropped, so the next run asks anew. The pair
 * is stored only whole, through the kubelet store's swap (./node-files.ts storeKubeletPair).
 */
import { createHash, type KeyObject } from 'node:crypto';
import path from 'node:path';
import { KUBELET_SERVING_SIGNER, MODES } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import type { Host } from '../../host/host.js';
import { isAlreadyExists } from '../../kube/errors.js';
import type { KubeApi, KubeObject } from '../../kube/types.js';
import { parseCertificatePem, type Certificate } from '../../pki/certificate.js';
import { createCsr, parseCsrPem, type CsrTemplate } from '../../pki/csr.js';
import { generateKeyPair, parsePrivateKeyPem, spkiDer } from '../../pki/keys.js';
import { isSignedBy, keyMatchesCertificate } from '../../pki/verify.js';
import type { LifecycleCtx } from '../context.js';
import { kubeletCurrent, rotationDir, storeKubeletPair } from './node-files.js';
import type { ApiAction } from './plan.js';

/** The kubelet's client signer (k8s.io/api/certificates/v1 KubeAPIServerClientKubeletSignerName). */
export const KUBELET_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';

/** What the kubelet asks for, per certificate: the request's content and the CSR object's spec fields. */
export interface KubeletRequest {
  readonly signerName: string;
  readonly usages: readonly string[];
  readonly template: CsrTemplate;
  /** The extended key usage the issued certificate must carry. */
  readonly extKeyUsage: 'clientAuth' | 'serverAuth';
}

/** The request for ACTION on NODE; CURRENT (the serving certificate in use) gives the serving request its SANs. */
export function kubeletRequestFor(action: ApiAction, node: string, current: Certificate): KubeletRequest {
  const subject = { commonName: `system:node:${node}`, organization: ['system:nodes'] };
  if (action === 'kubelet-client-certificate') {
    return { signerName: KUBELET_CLIENT_SIGNER, usages: ['digital signature', 'key encipherment', 'client auth'], template: { subject, dnsNames: [], ipAddresses: [] }, extKeyUsage: 'clientAuth' };
  }
  return {
    signerName: KUBELET_SERVING_SIGNER,
    usages: ['digital signature', 'key encipherment', 'server auth'],
    template: { subject, dnsNames: current.dnsNames, ipAddresses: current.ipAddresses },
    extKeyUsage: 'serverAuth',
  };
}

/** The request's name: the rotation's, the certificate's and the key's (a new key, a new request; a re-run with the staged key finds its own). */
export function csrNameFor(id: string, action: ApiAction, key: KeyObject): string {
  const fingerprint = createHash('sha256').update(spkiDer(key)).digest('hex').slice(0, 16);
  return `tsadm-rotate-ca-${id}-${action === 'kubelet-client-certificate' ? 'client' : 'serving'}-${fingerprint}`;
}

/** Why the certificate a signer issued is not the one asked for (undefined: it is). */
export function issuedProblem(cert: Certificate, ca: Certificate, key: KeyObject, req: KubeletRequest): string | undefined {
  if (!isSignedBy(cert, ca)) return `it was issued by "${cert.issuer.text}", not by the new cluster CA "${ca.subject.text}"`;
  if (!keyMatchesCertificate(cert, key)) return 'it certifies another key than the one requested';
  const want = req.template.subject;
  if (cert.subject.commonName !== want.commonName || cert.subject.organization.join(',') !== want.organization.join(',')) return `its subject is "${cert.subject.text}"`;
  if (!cert.extKeyUsage.includes(req.extKeyUsage)) return `it lacks the ${req.extKeyUsage} usage`;
  return undefined;
}

interface CsrObject extends KubeObject {
  readonly spec: { readonly request: string; readonly signerName: string; readonly usages: readonly string[]; readonly username?: string };
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status?: string; readonly reason?: string; readonly message?: string }[]; readonly certificate?: string };
}

/** The CertificateSigningRequest object the kubelet would create (certificates.k8s.io/v1). */
function csrObject(name: string, req: KubeletRequest, requestPem: string): CsrObject {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(requestPem).toString('base64'), signerName: req.signerName, usages: [...req.usages] },
  };
}

export interface KubeletCsrInput {
  readonly id: string;
  readonly node: string;
  readonly actions: readonly ApiAction[];
  /** The rotation's new cluster CA. */
  readonly ca: Certificate;
  /** A client with the kubelet's own credentials (kubelet.conf). */
  readonly api: KubeApi;
  /** Say what would be requested; request and write nothing. */
  readonly dryRun: boolean;
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

function stagedKubeletKey(id: string, action: ApiAction): string {
  return path.posix.join(rotationDir(id), 'kubelet', `${action}.key`);
}

/**
 * The worker's kubelet certificates for ACTIONS through CSRs, each stored once issued by the new CA.
 * Dry run: says what it would request and requests nothing. Returns the -current files replaced.
 */
export async function requestKubeletPairs(ctx: Pick<LifecycleCtx, 'host' | 'log' | 'startTime'>, input: KubeletCsrInput): Promise<string[]> {
  const done: string[] = [];
  for (const action of input.actions) {
    const current = kubeletCurrent(action);
    const pem = await ctx.host.readFile(current);
    if (pem === undefined) {
      throw new TsadmError('E_PRECONDITION', `${current} is missing: the kubelet's ${action.replace(/-/g, ' ')} cannot be requested anew`, {
        hint: 'point kubelet.conf at the rotating client certificate, then run node again',
      });
    }
    const cert = parseCertificatePem(pem, current);
    const staged = stagedKubeletKey(input.id, action);
    if (isSignedBy(cert, input.ca)) {
      // Stored by an earlier run that was killed before it dropped the staged key.
      if (await ctx.host.stat(staged)) await ctx.host.remove(staged);
      continue;
    }
    const req = kubeletRequestFor(action, input.node, cert);
    if (input.dryRun) {
      ctx.log.info(`Would request the kubelet's ${action.replace(/-/g, ' ')} from ${req.signerName} for "${req.template.subject.commonName}" (a new ECDSA P-256 key, usages ${req.usages.join(', ')}) and swap ${current} to it once the new CA issued it`, { prefix: 'dryrun' });
      continue;
    }
    const key = await stagedOrNewKey(ctx.host, staged);
    const issued = await issue(input, action, req, key, staged, ctx.host);
    done.push(await storeKubeletPair(ctx.host, ctx.startTime, action, issued.pem + key.export({ type: 'sec1', format: 'pem' }).toString()));
    await ctx.host.remove(staged);
  }
  return done;
}

async function stagedOrNewKey(host: Host, staged: string): Promise<KeyObject> {
  const pem = await host.readFile(staged);
  if (pem !== undefined) return parsePrivateKeyPem(pem, staged);
  const { privateKey } = await generateKeyPair('ECDSA-P256');
  await host.writeFile(staged, privateKey.export({ type: 'sec1', format: 'pem' }).toString(), { mode: MODES.key, kind: 'private-key', description: 'new kubelet key (staged for its CSR in the CA rotation)' });
  return privateKey;
}

/** The request made (or found), waited for, and its certificate checked; a refusal drops the staged key so the next run asks anew. */
async function issue(input: KubeletCsrInput, action: ApiAction, req: KubeletRequest, key: KeyObject, staged: string, host: Host): Promise<Certificate> {
  const name = csrNameFor(input.id, action, key);
  const request = createCsr(req.template, key);
  let live = await input.api.get<CsrObject>('CertificateSigningRequest', name);
  if (live && parseCsrPem(Buffer.from(live.spec.request, 'base64'), name).spki.compare(request.spki) !== 0) {
    throw new TsadmError('E_CONFLICT', `CertificateSigningRequest ${name} exists for another key`, { hint: `remove ${staged}, then run node again` });
  }
  if (!live) {
    try {
      live = await input.api.create(csrObject(name, req, request.pem));
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
  const deadline = Date.now() + (input.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  for (;;) {
    live = await input.api.get<CsrObject>('CertificateSigningRequest', name);
    const refused = live?.status?.conditions?.find((c) => (c.type === 'Denied' || c.type === 'Failed') && c.status !== 'False');
    if (refused) {
      await host.remove(staged);
      throw new TsadmError('E_PRECONDITION', `CertificateSigningRequest ${name} was ${refused.type.toLowerCase()}${refused.message ? `: ${refused.message}` : ''}`, { hint: `see "kubectl describe csr ${name}"; run node again to request anew` });
    }
    const certificate = live?.status?.certificate;
    if (certificate) {
      const cert = parseCertificatePem(Buffer.from(certificate, 'base64'), `the certificate of ${name}`);
      const problem = issuedProblem(cert, input.ca, key, req);
      if (problem === undefined) return cert;
      await host.remove(staged);
      throw new TsadmError('E_CONFLICT', `CertificateSigningRequest ${name} was issued, but ${problem}`, {
        hint: 'kube-controller-manager must sign with the new CA (--cluster-signing-cert-file): finish sign-new on every control plane, then run node again',
      });
    }
    if (!live || Date.now() > deadline) {
      const what = req.signerName === KUBELET_SERVING_SIGNER
        ? `approve it ("tsadm certs approve-kubelet-serving" or "kubectl certificate approve ${name}" on a control plane)`
        : 'check that kube-controller-manager runs its csrapproving and csrsigning controllers, and "kubectl get csr"';
      throw new TsadmError('E_TIMEOUT', `CertificateSigningRequest ${name} (${req.signerName}) was ${live ? `not issued within ${Math.round((input.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)}s` : 'removed before it was issued'}`, { hint: `${what}; then run node again` });
    }
    await new Promise((r) => setTimeout(r, input.intervalMs ?? 2000));
  }
}
