import { DEFAULTS, KUBE_SYSTEM } from '../../constants.js';
import type { Logger } from '../../log/events.js';
import { NO_RETRY } from '../../kube/retry.js';
import type { KubeApi } from '../../kube/types.js';
import { generateToken, type RandomSource } from '../../token/bootstrap-token.js';
import { tokenToSecret } from '../../token/secret.js';
import type { CheckFinding, Phase } from '../../engine/phase.js';
import type { InitCtx } from '../../run/context.js';
import { clusterApi } from './api.js';
import {
  KUBEADM_CERTS_SECRET, PROXY_TOKEN_DESCRIPTION, certFilesToUpload, decodeCertificateKey, generateCertificateKey, kubeadmCertsRbac, kubeadmCertsSecret,
  secretControllerRef,
} from '../../certs/kubeadm-certs-secret.js';

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

/** upload-certs renews its Secret on every run by design: the exit check is that the Secret is there. */
async function verifyUploadedCerts(ctx: InitCtx): Promise<CheckFinding[]> {
  if (!ctx.options.uploadCerts) return [{ check: 'upload-certs', ok: true, warning: true, detail: 'not applicable without --upload-certs' }];
  // Read-only, once (no retries: a check reports "does not answer" instead of waiting), through
  // the run's API seam, which the check command closes.
  const api = await ctx.api.open({ path: ctx.options.kubeconfigPath }, { log: ctx.log, retry: NO_RETRY });
  if (!(await api.healthz())) return [{ check: `Secret ${KUBE_SYSTEM}/${KUBEADM_CERTS_SECRET}`, ok: true, warning: true, detail: `not checked: the cluster at ${api.server} does not answer` }];
  const secret = await api.get('Secret', KUBEADM_CERTS_SECRET, KUBE_SYSTEM);
  const known = ctx.cfg.init.certificateKey !== '';
  return [
    { check: `Secret ${KUBE_SYSTEM}/${KUBEADM_CERTS_SECRET}`, ok: secret !== undefined, detail: secret ? 'present' : 'missing' },
    ...(known ? [] : [{ check: 'certificate key', ok: false, detail: 'not known to this run (init made it up): upload again to get one' }]),
  ];
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
  verify: verifyUploadedCerts,
};
