/**
 * Semantic checks of a node's files under a --rootfs, for comparing runs whose keys and serials
 * differ by design: every file present is whole (parses), every cert is signed by the CA on disk
 * and matches its key, every kubeconfig trusts that CA, keys are 0600.
 */
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';

const PKI = '/etc/kubernetes/pki';

/** [cert, signing CA] of kubeadm's certificate list (v1.20, local etcd). CAs sign themselves. */
const CERT_TABLE: readonly (readonly [string, string])[] = [
  ['ca', 'ca'], ['apiserver', 'ca'], ['apiserver-kubelet-client', 'ca'],
  ['front-proxy-ca', 'front-proxy-ca'], ['front-proxy-client', 'front-proxy-ca'],
  ['etcd/ca', 'etcd/ca'], ['etcd/server', 'etcd/ca'], ['etcd/peer', 'etcd/ca'], ['etcd/healthcheck-client', 'etcd/ca'],
  ['apiserver-etcd-client', 'etcd/ca'],
];

const KUBECONFIGS = ['admin.conf', 'kubelet.conf', 'controller-manager.conf', 'scheduler.conf'] as const;

const read = (root: string, hostPath: string): string | undefined => {
  const p = path.join(root, hostPath);
  return existsSync(p) ? readFileSync(p, 'utf8') : undefined;
};

function tryParse(what: string, fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return `${what}: ${(err as Error).message.split('\n')[0]}`;
  }
}

/** Every regular file under root, as host paths. */
export function listFiles(root: string, dir = ''): string[] {
  const real = path.join(root, dir);
  if (!existsSync(real)) return [];
  return readdirSync(real, { withFileTypes: true }).flatMap((d) => {
    const p = `${dir}/${d.name}`;
    if (d.isDirectory()) return listFiles(root, p);
    return d.isFile() ? [p] : [];
  });
}

/**
 * "No half-written file": each file tsadm writes parses as what it is. Returns problems (empty =
 * all whole). Works on partial trees (after a crash): only the files present are judged.
 */
export function checkWhole(root: string): string[] {
  const problems: string[] = [];
  for (const f of listFiles(root)) {
    const text = readFileSync(path.join(root, f), 'utf8');
    let problem: string | undefined;
    if (f.endsWith('.crt')) problem = tryParse(f, () => new X509Certificate(text));
    else if (f.endsWith('.key')) problem = tryParse(f, () => createPrivateKey(text));
    else if (f.endsWith('.pub')) problem = tryParse(f, () => createPublicKey(text));
    else if (f.endsWith('.conf') || f.endsWith('.yaml')) {
      problem = tryParse(f, () => {
        const doc = yaml.load(text) as Record<string, unknown> | undefined;
        if (!doc || typeof doc !== 'object' || !('apiVersion' in doc) || !('kind' in doc)) throw new Error('not a complete object');
      });
    } else if (f.endsWith('.json')) problem = tryParse(f, () => JSON.parse(text));
    else if (f.endsWith('.env')) problem = /^KUBELET_KUBEADM_ARGS=".*"\n$/s.test(text) ? undefined : `${f}: incomplete`;
    if (problem) problems.push(problem);
  }
  return problems;
}

/**
 * Full consistency of a finished node-local init (certs, kubeconfigs, SA pair, modes); with
 * `certsOnly`, of the certs phase's output alone.
 */
export function verifyPki(root: string, opts: { certsOnly?: boolean } = {}): string[] {
  const problems: string[] = [...checkWhole(root)];
  const certs = new Map<string, X509Certificate>();
  for (const [name] of CERT_TABLE) {
    const text = read(root, `${PKI}/${name}.crt`);
    if (text === undefined) {
      problems.push(`${name}.crt missing`);
      continue;
    }
    certs.set(name, new X509Certificate(text));
  }
  for (const [name, caName] of CERT_TABLE) {
    const cert = certs.get(name);
    const ca = certs.get(caName);
    const keyText = read(root, `${PKI}/${name}.key`);
    if (!cert || !ca) continue;
    if (!cert.verify(ca.publicKey)) problems.push(`${name}.crt is not signed by ${caName}.crt`);
    if (cert.issuer !== ca.subject) problems.push(`${name}.crt issuer is not ${caName}`);
    if (keyText === undefined) problems.push(`${name}.key missing`);
    else if (!cert.checkPrivateKey(createPrivateKey(keyText))) problems.push(`${name}.key does not match ${name}.crt`);
    const keyMode = modeOf(root, `${PKI}/${name}.key`);
    if (keyMode !== undefined && keyMode !== 0o600) problems.push(`${name}.key mode ${keyMode.toString(8)}`);
  }
  const sa = read(root, `${PKI}/sa.key`);
  const saPub = read(root, `${PKI}/sa.pub`);
  if (!sa || !saPub) problems.push('sa.key/sa.pub missing');
  else if (createPublicKey(createPrivateKey(sa)).export({ type: 'spki', format: 'pem' }) !== createPublicKey(saPub).export({ type: 'spki', format: 'pem' })) {
    problems.push('sa.pub is not the public half of sa.key');
  }
  const ca = certs.get('ca');
  for (const kc of opts.certsOnly ? [] : KUBECONFIGS) {
    const text = read(root, `/etc/kubernetes/${kc}`);
    if (text === undefined) {
      problems.push(`${kc} missing`);
      continue;
    }
    const doc = yaml.load(text) as { clusters: { cluster: Record<string, string> }[]; users: { user: Record<string, string> }[] };
    const caData = Buffer.from(doc.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString();
    if (!ca || new X509Certificate(caData).fingerprint256 !== ca.fingerprint256) problems.push(`${kc} does not trust ca.crt`);
    const user = doc.users[0]?.user ?? {};
    // After kubelet-finalize, kubelet.conf points at the kubelet's own rotated certificate file.
    if (kc === 'kubelet.conf' && user['client-certificate'] === '/var/lib/kubelet/pki/kubelet-client-current.pem' && user['client-certificate-data'] === undefined) {
      if (modeOf(root, `/etc/kubernetes/${kc}`) !== 0o600) problems.push(`${kc} is not 0600`);
      continue;
    }
    const clientCert = new X509Certificate(Buffer.from(user['client-certificate-data'] ?? '', 'base64').toString());
    if (ca && !clientCert.verify(ca.publicKey)) problems.push(`${kc} client certificate is not signed by ca.crt`);
    if (!clientCert.checkPrivateKey(createPrivateKey(Buffer.from(user['client-key-data'] ?? '', 'base64').toString()))) {
      problems.push(`${kc} client key does not match its certificate`);
    }
    if (modeOf(root, `/etc/kubernetes/${kc}`) !== 0o600) problems.push(`${kc} is not 0600`);
  }
  return problems;
}

function modeOf(root: string, hostPath: string): number | undefined {
  const p = path.join(root, hostPath);
  return existsSync(p) ? statSync(p).mode & 0o777 : undefined;
}

/** Files whose bytes are a function of the config only (no keys, serials or times in them). */
export function isDeterministic(hostPath: string): boolean {
  return hostPath.startsWith('/etc/kubernetes/manifests/') || hostPath.startsWith('/var/lib/kubelet/');
}
