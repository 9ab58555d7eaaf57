/**
 * One kubeconfig file (kubeadm's createKubeConfigFileIfNotExists): written when absent; an
 * existing file is kept if its current cluster has the same CA (a different server URL is only
 * warned about, as kubeadm does since v1.19), otherwise E_CONFLICT. With an external CA the
 * files must be provided.
 */
import path from 'node:path';
import { MODES } from '../constants.js';
import type { KeyObject } from 'node:crypto';
import { TsadmError, errorMessage } from '../errors.js';
import { parsePrivateKeyPem } from '../pki/keys.js';
import { keyMatchesCertificate, signedByProblem } from '../pki/verify.js';
import { parseCertificatePem, type Certificate } from '../pki/certificate.js';
import { loadCA } from '../certs/ca.js';
import { certRow } from '../certs/cert-table.js';
import type { PkiCtx } from '../certs/context.js';
import { pkiFiles } from '../certs/paths.js';
import { leafValidity } from '../certs/validity.js';
import { controlPlaneEndpointURL, localAPIEndpointURL } from '../config/endpoint.js';
import type { KubeconfigRow } from './kubeconfig-table.js';
import { currentClientCert, currentCluster } from './read.js';
import { kubeconfigWithClientCertificate } from './client-certificate.js';

export function kubeconfigPath(ctx: Pick<PkiCtx, 'options'>, row: KubeconfigRow): string {
  return path.posix.join(ctx.options.kubeconfigDir, row.file);
}

export function serverFor(ctx: Pick<PkiCtx, 'cfg' | 'versions'>, row: KubeconfigRow): string {
  return row.server(ctx.cfg, ctx.versions) === 'local' ? localAPIEndpointURL(ctx.cfg) : controlPlaneEndpointURL(ctx.cfg);
}

function sameCA(caData: Buffer, ca: Certificate): boolean {
  try {
    return parseCertificatePem(caData).der.equals(ca.der);
  } catch {
    return false;
  }
}

/**
 * Why the existing kubeconfig's client certificate cannot be used, or undefined. kubeadm checks
 * only the CA, so a truncated or foreign client certificate would be kept and fail at first
 * use. File paths (kubelet.conf points at the kubelet's rotated certificate after
 * kubelet-finalize) are read relative to the kubeconfig's directory, as kubectl does.
 */
async function clientCertProblem(ctx: PkiCtx, file: string, text: string, ca: Certificate): Promise<string | undefined> {
  const client = currentClientCert(text);
  if (client === undefined) return undefined; // token or plugin: nothing of ours to check
  if (typeof client === 'string') return client;
  const read = async (data: Buffer | undefined, ref: string | undefined): Promise<Buffer | undefined> =>
    data ?? (ref === undefined ? undefined : ctx.host.readFile(path.posix.resolve(path.posix.dirname(file), ref)));
  let certPem: Buffer | undefined;
  let keyPem: Buffer | undefined;
  try {
    certPem = await read(client.certData, client.certFile);
    keyPem = await read(client.keyData, client.keyFile);
  } catch (err) {
    // The kubelet's rotated certificate is an absolute symlink, which --rootfs will not follow.
    ctx.log.info(`Not checking the client certificate of "${file}": ${errorMessage(err)}`);
    return undefined;
  }
  if (!certPem) return `its client certificate ${client.certFile ? `(${client.certFile}) ` : ''}is missing`;
  if (!keyPem) return `its client key ${client.keyFile ? `(${client.keyFile}) ` : ''}is missing`;
  let cert: Certificate;
  let key: KeyObject;
  try {
    cert = parseCertificatePem(certPem, 'its client certificate');
    key = parsePrivateKeyPem(keyPem, 'its client key');
  } catch (err) {
    return `it cannot be read: ${errorMessage(err)}`;
  }
  if (!keyMatchesCertificate(cert, key)) return 'its client key does not match its client certificate';
  const problem = signedByProblem(cert, ca);
  return problem ? `its client certificate is ${problem}` : undefined;
}

export async function ensureKubeconfig(ctx: PkiCtx, row: KubeconfigRow): Promise<void> {
  const file = kubeconfigPath(ctx, row);
  const ca = await loadCA(ctx, certRow('ca'));
  if (!ca) {
    const caFile = pkiFiles(ctx.cfg.cluster.certificatesDir, 'ca').cert;
    throw new TsadmError('E_PRECONDITION', `couldn't create a kubeconfig; the CA files do not exist (${caFile})`, {
      hint: 'run "tsadm init phase certs ca" to generate it',
    });
  }
  const server = serverFor(ctx, row);
  const existing = await ctx.host.readFile(file);
  if (existing !== undefined) {
    const current = currentCluster(existing.toString('utf8'));
    if (typeof current === 'string') {
      throw new TsadmError('E_CONFLICT', `failed to load kubeconfig file ${file} that already exists on disk: ${current}`, {
        hint: `remove ${file} to let tsadm write it`,
      });
    }
    const caData = current.caData.length > 0 || !current.caFile ? current.caData : (await ctx.host.readFile(current.caFile)) ?? Buffer.alloc(0);
    if (!sameCA(caData, ca.cert)) {
      throw new TsadmError('E_CONFLICT', `a kubeconfig file "${file}" exists already but has got the wrong CA cert`, {
        hint: `remove ${file} to let tsadm write a new one for the CA in ${ca.certFile}`,
      });
    }
    const clientProblem = await clientCertProblem(ctx, file, existing.toString('utf8'), ca.cert);
    if (clientProblem) {
      throw new TsadmError('E_CONFLICT', `a kubeconfig file "${file}" exists already but ${clientProblem}`, {
        hint: ca.key ? `remove ${file} to let tsadm write a new one` : `replace ${file} with one whose client certificate your CA signed`,
      });
    }
    if (current.server !== server) {
      ctx.log.warn(`a kubeconfig file "${file}" exists already but has an unexpected API Server URL: expected: ${server}, got: ${current.server}`);
    }
    ctx.log.info(ca.key ? `Using existing kubeconfig file: "${file}"` : `External CA mode: Using user provided ${row.file}`);
    return;
  }
  const identity = row.identity(ctx.cfg, ctx.versions);
  if (!ca.key) {
    throw new TsadmError('E_PRECONDITION', `external CA mode: ${file} is missing and tsadm cannot issue its client certificate without ${ca.keyFile}`, {
      hint: `provide ${file} with a client certificate for CN=${identity.commonName} signed by your CA, or provide ${ca.keyFile}`,
    });
  }
  const keyPair = await ctx.state.pki.keys.take(`kubeconfig/${row.name}`, ctx.cfg.cluster.encryptionAlgorithm);
  const text = kubeconfigWithClientCertificate(
    { clusterName: ctx.cfg.cluster.clusterName, server, caPem: ca.cert.pem, userName: identity.commonName },
    { subject: identity, validity: leafValidity({ ...ctx, cluster: ctx.cfg.cluster }, ca.cert), versions: ctx.versions, keyPair, ca: { key: ca.key, cert: ca.cert } },
  );
  ctx.log.info(`Writing "${row.file}" kubeconfig file`);
  await ctx.host.writeFile(file, text, { mode: MODES.kubeconfig, kind: 'kubeconfig', description: `${row.file} kubeconfig` });
}
