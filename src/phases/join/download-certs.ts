/**
 * control-plane-prepare/download-certs: the shared control-plane certificates and keys from the
 * kubeadm-certs Secret (uploaded by `init --upload-certs`), decrypted with --certificate-key and
 * written into the certificate directory. Read with the bootstrap credentials, i.e. only after
 * discovery established trust in the cluster.
 * Idempotency: identical files are not rewritten. Dry-run: writes are listed.
 */
import { KUBE_SYSTEM, MODES } from '../../constants.js';
import type { Etcd } from '../../config/types.js';
import { TsadmError } from '../../errors.js';
import type { FileKind } from '../../host/host.js';
import { isForbidden } from '../../kube/errors.js';
import type { SecretObject } from '../../kube/types.js';
import { KUBEADM_CERTS_SECRET, certFilesToUpload, decodeCertificateKey, decryptBytes } from '../../certs/kubeadm-certs-secret.js';
import type { JoinCtx } from './context.js';
import { bootstrapApi, clusterConfig } from './state.js';

/** One decrypted file to write. */
export interface DownloadedFile {
  readonly path: string;
  readonly content: Buffer;
  readonly mode: number;
  readonly kind: FileKind;
}

/** Pure: the Secret's entries decrypted and mapped to their paths (empty entries = files the cluster does not have). */
export function decryptKubeadmCerts(secret: SecretObject, certificateKey: string, certificatesDir: string, etcd: Etcd): DownloadedFile[] {
  const key = decodeCertificateKey(certificateKey);
  const data = secret.data ?? {};
  const out: DownloadedFile[] = [];
  for (const file of certFilesToUpload(certificatesDir, etcd)) {
    const value = data[file.key];
    if (value === undefined || value === '') continue;
    const content = decryptBytes(Buffer.from(value, 'base64'), key);
    out.push({ path: file.path, content, ...fileMode(file.path) });
  }
  return out;
}

/** The modes init writes (certificates 0644, keys and sa.pub 0600), so every control plane looks alike. */
function fileMode(p: string): { mode: number; kind: FileKind } {
  if (p.endsWith('.key')) return { mode: MODES.key, kind: 'private-key' };
  if (p.endsWith('sa.pub')) return { mode: MODES.publicKeySa, kind: 'public-key' };
  return { mode: MODES.certificate, kind: 'certificate' };
}

export async function runDownloadCerts(ctx: JoinCtx): Promise<void> {
  const cp = ctx.cfg.join.controlPlane;
  if (!cp?.certificateKey) return; // skipIf said why
  const cluster = await clusterConfig(ctx);
  const api = await bootstrapApi(ctx);
  ctx.log.info(`Downloading the certificates in Secret "${KUBEADM_CERTS_SECRET}" in the "${KUBE_SYSTEM}" Namespace`, { prefix: 'download-certs' });
  let secret: SecretObject | undefined;
  try {
    secret = await api.get<SecretObject>('Secret', KUBEADM_CERTS_SECRET, KUBE_SYSTEM);
  } catch (err) {
    if (!isForbidden(err)) throw err;
    throw new TsadmError('E_API', `the bootstrap token may not read the Secret ${KUBE_SYSTEM}/${KUBEADM_CERTS_SECRET} (forbidden)`, {
      cause: err,
      hint: 'the Secret and its RBAC rules are made by `tsadm init phase upload-certs --upload-certs` on a control-plane node',
    });
  }
  if (!secret) {
    throw new TsadmError('E_PRECONDITION', `Secret "${KUBEADM_CERTS_SECRET}" was not found in the "${KUBE_SYSTEM}" Namespace. This Secret might have expired`, {
      hint: 'run `tsadm init phase upload-certs --upload-certs` on a control-plane node to upload the certificates again (it prints a new certificate key)',
    });
  }
  const files = decryptKubeadmCerts(secret, cp.certificateKey, cluster.init.cluster.certificatesDir, cluster.init.cluster.etcd);
  for (const f of files) {
    await ctx.host.writeFile(f.path, f.content, { mode: f.mode, kind: f.kind, description: `downloaded ${f.path}` });
  }
  ctx.log.debug(`wrote ${files.length} shared certificate and key files`, { prefix: 'download-certs' });
}
