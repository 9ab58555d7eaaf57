/**
 * `control-plane-prepare` (join --control-plane): the shared certificates (downloaded or already
 * copied), this node's own certificates, its kubeconfig files and its static pod manifests — by
 * the init phases' own logic, run on an init-shaped view of this node (state.ts initView).
 * Skipped for workers. Idempotency and dry-run: those of the init phases.
 */
import { TsadmError } from '../../errors.js';
import type { Phase } from '../../engine/phase.js';
import type { JoinCtx } from './context.js';
import { ensureCA, loadCA } from '../../certs/ca.js';
import { CERT_ROWS } from '../../certs/cert-table.js';
import { ensureLeaf } from '../../certs/leaf.js';
import { pkiFiles } from '../../certs/paths.js';
import { prefetchCertKeys } from '../../certs/prefetch.js';
import { ensureServiceAccountKey } from '../../certs/sa.js';
import { runControlPlaneComponent } from '../controlplane/phase.js';
import { ensureKubeconfig, kubeconfigPath } from '../../kubeconfig/ensure.js';
import { KUBECONFIG_ROWS } from '../../kubeconfig/kubeconfig-table.js';
import { runDownloadCerts } from './download-certs.js';
import { DISCOVERY_FLAGS } from './flags.js';
import { initView } from './state.js';

/** The endpoint and discovery flags every example carries. */
const EP_EX = '10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:<hash>';

const notControlPlane = (ctx: JoinCtx): string | undefined => (ctx.cfg.join.controlPlane ? undefined : 'not a control-plane join (--control-plane is not set)');

/** The files kubeadm writes for a joining control plane (no kubelet.conf: the TLS bootstrap makes it). */
const JOIN_KUBECONFIGS = ['admin', 'controller-manager', 'scheduler'];

async function runCerts(ctx: JoinCtx): Promise<void> {
  const view = await initView(ctx, 'certs');
  const { cluster } = view.cfg;
  view.log.info(`Using certificateDir folder "${cluster.certificatesDir}"`);
  const rows = CERT_ROWS.filter((r) => !(r.etcd && cluster.etcd.mode === 'external'));
  // A joining control plane never creates a CA: a missing one means the shared files are absent.
  for (const row of rows.filter((r) => !r.caName)) {
    if (!(await loadCA(view, row))) {
      const files = pkiFiles(cluster.certificatesDir, row.baseName);
      throw new TsadmError('E_PRECONDITION', `the shared "${row.baseName}" certificate authority is missing (${files.cert})`, {
        hint: 'join with --certificate-key (after `tsadm init phase upload-certs --upload-certs`), or copy the CA files from a control-plane node',
      });
    }
  }
  if (!(await ctx.host.stat(`${cluster.certificatesDir}/sa.key`))) {
    throw new TsadmError('E_PRECONDITION', `the shared service-account key is missing (${cluster.certificatesDir}/sa.key)`, {
      hint: 'join with --certificate-key, or copy sa.key and sa.pub from a control-plane node',
    });
  }
  await prefetchCertKeys(view, rows[0]?.name ?? 'ca');
  for (const row of rows) await (row.caName ? ensureLeaf(view, row) : ensureCA(view, row));
  await ensureServiceAccountKey(view);
}

async function runKubeconfigs(ctx: JoinCtx): Promise<void> {
  const view = await initView(ctx, 'kubeconfig');
  view.log.info('Generating kubeconfig files');
  view.log.info(`Using kubeconfig folder "${view.options.kubeconfigDir}"`);
  const rows = KUBECONFIG_ROWS.filter((r) => JOIN_KUBECONFIGS.includes(r.name));
  // Keys for the missing files are generated together (in the background), not one by one.
  const pool = view.state.pki.keys;
  for (const row of rows) if (!(await ctx.host.stat(kubeconfigPath(view, row)))) pool.prefetch(`kubeconfig/${row.name}`, view.cfg.cluster.encryptionAlgorithm);
  for (const row of rows) await ensureKubeconfig(view, row);
}

async function runControlPlane(ctx: JoinCtx): Promise<void> {
  const view = await initView(ctx, 'control-plane');
  for (const c of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const) await runControlPlaneComponent(view, c);
}

export const controlPlanePreparePhase: Phase<JoinCtx> = {
  name: 'control-plane-prepare',
  summary: 'Prepare the machine for serving a control plane',
  description: 'Prepare this machine for a new control-plane instance: the shared certificates, this node\'s certificates, its kubeconfig files and its static Pod manifests. Skipped without --control-plane.',
  example: `# Prepares the machine for serving a control plane\ntsadm join phase control-plane-prepare all ${EP_EX} --control-plane --certificate-key <key>`,
  positional: '[api-server-endpoint]',
  skipIf: notControlPlane,
  children: [
    {
      name: 'download-certs',
      summary: 'Download certificates shared among control-plane nodes from the kubeadm-certs Secret',
      description: 'Download the shared certificates and keys (CAs, service-account keys, etcd CA) from the kubeadm-certs Secret, decrypting them with --certificate-key.',
      positional: '[api-server-endpoint]',
      flags: [...DISCOVERY_FLAGS, 'certificate-key', 'control-plane'],
      example: `tsadm join phase control-plane-prepare download-certs ${EP_EX} --control-plane --certificate-key <key>`,
      skipIf: (ctx) => (ctx.cfg.join.controlPlane?.certificateKey ? undefined : 'no --certificate-key: the shared certificates must already be on this machine'),
      run: runDownloadCerts,
    },
    {
      name: 'certs',
      summary: 'Generate the certificates for the new control plane components',
      description: 'Generate this node\'s certificates (apiserver, kubelet client, front-proxy client, etcd server/peer/clients) signed by the shared CAs.',
      positional: '[api-server-endpoint]',
      example: `tsadm join phase control-plane-prepare certs ${EP_EX} --control-plane --apiserver-advertise-address 10.0.0.11`,
      flags: [...DISCOVERY_FLAGS, 'apiserver-advertise-address', 'control-plane', 'node-name'],
      run: runCerts,
    },
    {
      name: 'kubeconfig',
      summary: 'Generate the kubeconfig for the new control plane components',
      description: 'Generate admin.conf, controller-manager.conf and scheduler.conf for this node.',
      positional: '[api-server-endpoint]',
      example: `tsadm join phase control-plane-prepare kubeconfig ${EP_EX} --control-plane`,
      flags: [...DISCOVERY_FLAGS, 'control-plane'],
      run: runKubeconfigs,
    },
    {
      name: 'control-plane',
      summary: 'Generate the manifests for the new control plane components',
      description: 'Generate the kube-apiserver, kube-controller-manager and kube-scheduler static Pod manifests of this node.',
      example: `tsadm join phase control-plane-prepare control-plane ${EP_EX} --control-plane --apiserver-advertise-address 10.0.0.11`,
      positional: '[api-server-endpoint]',
      flags: [...DISCOVERY_FLAGS, 'apiserver-advertise-address', 'apiserver-bind-port', 'control-plane', 'patches'],
      run: runControlPlane,
    },
  ],
};
