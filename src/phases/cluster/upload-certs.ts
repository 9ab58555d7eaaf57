import { DEFAULTS } from '../../constants.js';
import type { Logger } from '../../log/events.js';
import type { KubeApi } from '../../kube/types.js';
import { generateToken, type RandomSource } from '../../token/bootstrap-token.js';
import { tokenToSecret } from '../../token/secret.js';
import type { Phase } from '../../engine/phase.js';
import type { InitCtx } from '../../workflows/context.js';
import { clusterApi } from './api.js';
import {
  KUBEADM_CERTS_SECRET, PROXY_TOKEN_DESCRIPTION, certFilesToUpload, decodeCertificateKey, generateCertificateKey, kubeadmCertsRbac, kubeadmCertsSecret,
  secretControllerRef,
} from './upload-certs-render.js';
import { KUBE_SYSTEM } from './upload-config-render.js';

/**
 * upload-certs (only with --upload-certs): the cluster CAs and SA keys, encrypted with the
 * certificate key, in Secret kubeadm-certs for `join --control-plane`. Each run refreshes the
 * two-hour lifetime with a new proxy token (as kubeadm does), so a re-run writes again by design.
 */
export interface UploadCertsInput {
  readonly certificateKey: string;
  /** Secret key → file content (undefined when the file is missing: stored empty, as kubeadm does). */
  readonly files: ReadonlyMap<string, Buffer | undefined>;
  readonly now: Date;
  readonly random?: RandomSource;
}

export async function uploadCerts(api: KubeApi, input: UploadCertsInput, log: Pick<Logger, 'info'>): Promise<void> {
  log.info(`Storing the certificates in Secret "${KUBEADM_CERTS_SECRET}" in the "${KUBE_SYSTEM}" Namespace`, { prefix: 'upload-certs' });
  const key = decodeCertificateKey(input.certificateKey);
  const proxy = tokenToSecret({
    token: generateToken(input.random),
    description: PROXY_TOKEN_DESCRIPTION,
    ttlMs: DEFAULTS.uploadCertsTokenTtlMs,
    usages: [],
    groups: [],
  }, input.now);
  const { object: stored } = await api.ensure(proxy);
  await api.ensure(kubeadmCertsSecret(input.files, key, secretControllerRef(stored)));
  for (const obj of kubeadmCertsRbac()) await api.ensure(obj);
}

export const uploadCertsPhase: Phase<InitCtx> = {
  name: 'upload-certs',
  summary: `Upload certificates to ${KUBEADM_CERTS_SECRET}`,
  description: `Upload the control-plane certificates (CAs, service account and front-proxy keys) to the ${KUBEADM_CERTS_SECRET} Secret, `
    + 'encrypted with the certificate key, so that `tsadm join --control-plane --certificate-key` can fetch them (for two hours).',
  example: '  # Uploads the certificates with a new certificate key, and prints the key.\n  tsadm init phase upload-certs --upload-certs --config config.yaml',
  flags: ['config', 'kubeconfig', 'upload-certs', 'certificate-key', 'skip-certificate-key-print'],
  async run(ctx) {
    if (!ctx.options.uploadCerts) {
      ctx.log.info('Skipping phase. Please see --upload-certs', { prefix: 'upload-certs' });
      return;
    }
    const certificateKey = ctx.cfg.init.certificateKey || ctx.state.certificateKey || generateCertificateKey();
    decodeCertificateKey(certificateKey); // fail on a bad key before anything is written
    ctx.state.certificateKey = certificateKey;
    const files = new Map<string, Buffer | undefined>();
    for (const f of certFilesToUpload(ctx.cfg.cluster.certificatesDir, ctx.cfg.cluster.etcd)) files.set(f.key, await ctx.host.readFile(f.path));
    const api = await clusterApi(ctx);
    await uploadCerts(api, { certificateKey, files, now: ctx.clock() }, ctx.log);
    if (!ctx.options.skipCertificateKeyPrint) {
      // The user asked for --upload-certs without --skip-certificate-key-print: the key is the output.
      ctx.log.info('Using certificate key:', { prefix: 'upload-certs' });
      ctx.log.info(certificateKey, { prefix: '' });
    }
  },
};
