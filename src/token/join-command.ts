import { loadYaml } from '../yaml/read.js';
import { TsadmError } from '../errors.js';
import { caCertHash } from '../pki/hash.js';

/**
 * The `join` command kubeadm prints (cmd/kubeadm/app/cmd/util/join.go), with "tsadm" for
 * "kubeadm". The multi-line form (with "\" continuations and trailing spaces) is what init prints;
 * `token create --print-join-command` prints it flattened to one line.
 */
export interface JoinCommandInput {
  /** "host:port": the kubeconfig's server without "https://". */
  readonly endpoint: string;
  readonly token: string;
  /** "sha256:<hex>" pins, one per CA certificate. */
  readonly caCertHashes: readonly string[];
  readonly controlPlane: boolean;
  readonly certificateKey?: string;
  readonly skipTokenPrint?: boolean;
  readonly skipCertificateKeyPrint?: boolean;
}

const WITHHELD = '<value withheld>';

export function renderJoinCommand(i: JoinCommandInput): string {
  const token = i.skipTokenPrint ? WITHHELD : i.token;
  let out = `tsadm join ${i.endpoint} --token ${token} \\\n    `;
  for (const h of i.caCertHashes) out += `--discovery-token-ca-cert-hash ${h} `;
  if (i.controlPlane) {
    out += '\\\n    --control-plane ';
    if (i.certificateKey) out += `--certificate-key ${i.skipCertificateKeyPrint ? WITHHELD : i.certificateKey}`;
  }
  return out;
}

/** What `token create --print-join-command` prints: continuations and tabs removed. */
export function flattenJoinCommand(cmd: string): string {
  return cmd.replaceAll('\\\n', '').replaceAll('\t', '');
}

export interface JoinTarget {
  readonly endpoint: string;
  readonly caCertHashes: readonly string[];
}

/**
 * Endpoint and CA pins from the kubeconfig the command talks through (its current context's
 * cluster, CA embedded as certificate-authority-data). `readCa` resolves a certificate-authority path.
 */
export function joinTargetFromKubeconfig(text: string, readCa?: (path: string) => string | undefined): JoinTarget {
  const doc = (loadYaml(text) ?? {}) as KubeconfigDoc;
  const contextName = doc['current-context'];
  const ctx = doc.contexts?.find((c) => c.name === contextName)?.context;
  const cluster = doc.clusters?.find((c) => c.name === ctx?.cluster)?.cluster ?? (doc.clusters?.length === 1 ? doc.clusters[0]?.cluster : undefined);
  if (!cluster?.server) {
    throw new TsadmError('E_PRECONDITION', 'failed to get default cluster config from the kubeconfig', { hint: 'check current-context and clusters in the kubeconfig' });
  }
  let caPem: string | undefined;
  if (cluster['certificate-authority-data']) caPem = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
  else if (cluster['certificate-authority'] && readCa) caPem = readCa(cluster['certificate-authority']);
  if (!caPem) throw new TsadmError('E_PRECONDITION', 'no CA certificates found in kubeconfig', { hint: 'the kubeconfig must embed or reference the cluster CA' });
  return { endpoint: cluster.server.replaceAll('https://', ''), caCertHashes: caCertHashes(caPem) };
}

/** RFC 7469 pins of every certificate in a PEM bundle: sha256 over the DER SubjectPublicKeyInfo. */
function caCertHashes(pemBundle: string): string[] {
  const blocks = pemBundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new TsadmError('E_PRECONDITION', 'failed to parse CA certificate from kubeconfig', { hint: 'the CA data is not a PEM certificate' });
  return blocks.map((pem) => caCertHash(pem));
}

interface KubeconfigDoc {
  readonly clusters?: ReadonlyArray<{ readonly name: string; readonly cluster?: { readonly server?: string; readonly 'certificate-authority-data'?: string; readonly 'certificate-authority'?: string } }>;
  readonly contexts?: ReadonlyArray<{ readonly name: string; readonly context?: { readonly cluster?: string } }>;
  readonly 'current-context'?: string;
}
