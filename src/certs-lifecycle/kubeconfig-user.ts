/**
 * `kubeconfig user` (kubeadm's alpha kubeconfig user): a kubeconfig for another user of this
 * cluster, printed rather than written. With --token the user authenticates with that token;
 * otherwise a client certificate (CN = client name, O = orgs, clientAuth) is signed by the
 * cluster CA for --validity-period (default: the cluster's certificate validity), never beyond
 * the CA's own expiry. The server is the control-plane endpoint, as for admin.conf.
 */
import { TsadmError } from '../errors.js';
import { certRow } from '../certs/cert-table.js';
import { leafValidity } from '../certs/validity.js';
import { loadCA } from '../certs/ca.js';
import { controlPlaneEndpointURL } from '../config/endpoint.js';
import { kubeconfigWithClientCertificate } from '../kubeconfig/client-certificate.js';
import { renderKubeconfig } from '../kubeconfig/render.js';
import { generateKeyPair } from '../pki/keys.js';
import type { LifecycleCtx } from './context.js';

export interface KubeconfigUserOptions {
  readonly clientName: string;
  readonly organizations: readonly string[];
  readonly token?: string;
  /** Client certificate validity in ms; default cfg.cluster.certificateValidityMs. */
  readonly validityMs?: number;
}

export async function kubeconfigForUser(ctx: LifecycleCtx, o: KubeconfigUserOptions): Promise<string> {
  if (o.clientName.trim() === '') throw new TsadmError('E_USAGE', 'missing required flag --client-name', { hint: 'tsadm kubeconfig user --client-name <name>' });
  const ca = await loadCA(ctx, certRow('ca'));
  if (!ca) {
    throw new TsadmError('E_PRECONDITION', `couldn't load the cluster CA from ${ctx.certDir}`, { hint: 'run on a control-plane node, or point --cert-dir / certificatesDir at the PKI' });
  }
  const base = { clusterName: ctx.cfg.cluster.clusterName, server: controlPlaneEndpointURL(ctx.cfg), caPem: ca.cert.pem, userName: o.clientName };
  if (o.token !== undefined) return renderKubeconfig({ ...base, auth: { kind: 'token', token: o.token } });
  if (!ca.key) {
    throw new TsadmError('E_PRECONDITION', `external CA mode: ${ca.keyFile} is missing, so tsadm cannot sign a client certificate`, {
      hint: 'use --token, or issue a client certificate with your CA',
    });
  }
  const cluster = { ...ctx.cfg.cluster, certificateValidityMs: o.validityMs ?? ctx.cfg.cluster.certificateValidityMs };
  let { notBefore, notAfter } = leafValidity({ startTime: ctx.startTime, versions: ctx.versions, cluster }, ca.cert);
  if (notAfter.getTime() > ca.cert.notAfter.getTime()) {
    ctx.log.warn(`the client certificate cannot outlive the CA, which expires on ${ca.cert.notAfter.toISOString()}; it expires then too`);
    notAfter = ca.cert.notAfter;
  }
  const keyPair = await generateKeyPair(ctx.cfg.cluster.encryptionAlgorithm);
  const subject = { commonName: o.clientName, organization: o.organizations };
  return kubeconfigWithClientCertificate(base, { subject, validity: { notBefore, notAfter }, versions: ctx.versions, keyPair, ca: { key: ca.key, cert: ca.cert } });
}
