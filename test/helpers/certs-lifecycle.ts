/**
 * Shared by the certificate lifecycle tests: a PKI made by tsadm's phases or by the reference
 * kubeadm v1.20.2 under a temp root, kubeadm's own `certs check-expiration` as an oracle, and
 * the CLI run in-process.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { referenceKubeadmPath } from './components.js';
import { fixtureInitConfig } from './config-fixture.js';
import { initCtxFor } from './phase-ctx.js';
import type { TempRoot } from './temp-root.js';
import { runCerts, runKubeconfigs } from './pki-test-utils.js';

export { runCli } from './cli.js';

export const KUBEADM = referenceKubeadmPath();
export const KC = '/etc/kubernetes';
export const PKI = '/etc/kubernetes/pki';

/**
 * Node cp1 at 10.0.0.5, 1.20 (v1beta2), as the other kubeadm comparison tests use; optionally
 * behind a control-plane endpoint, with ECDSA keys (kubeadm 1.20's PublicKeysECDSA feature gate,
 * tsadm's encryptionAlgorithm) or with external etcd.
 */
export function kubeadmConfigYaml(o: { externalEtcd?: boolean; certificatesDir?: string; controlPlaneEndpoint?: string; publicKeysECDSA?: boolean } = {}): string {
  return [
    'apiVersion: kubeadm.k8s.io/v1beta2',
    'kind: InitConfiguration',
    'localAPIEndpoint:',
    '  advertiseAddress: 10.0.0.5',
    '  bindPort: 6443',
    'nodeRegistration:',
    '  name: cp1',
    '---',
    'apiVersion: kubeadm.k8s.io/v1beta2',
    'kind: ClusterConfiguration',
    'kubernetesVersion: v1.20.2',
    ...(o.controlPlaneEndpoint !== undefined ? [`controlPlaneEndpoint: ${o.controlPlaneEndpoint}`] : []),
    `certificatesDir: ${o.certificatesDir ?? PKI}`,
    ...(o.publicKeysECDSA ? ['featureGates:', '  PublicKeysECDSA: true'] : []),
    ...(o.externalEtcd
      ? ['etcd:', '  external:', '    endpoints: ["https://10.0.0.9:2379"]', '    caFile: /etc/etcd/ca.crt', '    certFile: /etc/etcd/client.crt', '    keyFile: /etc/etcd/client.key']
      : []),
    '',
  ].join('\n');
}

/** Writes the config at /kubeadm.yaml inside the root; returns its real path (tsadm's --config). */
export function writeConfig(root: TempRoot, o: Parameters<typeof kubeadmConfigYaml>[0] = {}): string {
  const file = root.at('/kubeadm.yaml');
  writeFileSync(file, kubeadmConfigYaml(o));
  return file;
}

export function kubeadm(args: readonly string[]): { code: number; stdout: string; stderr: string } {
  if (!KUBEADM) throw new Error('reference kubeadm not provisioned');
  const r = spawnSync(KUBEADM, [...args], { encoding: 'utf8' });
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

function kubeadmOk(args: readonly string[]): string {
  const r = kubeadm(args);
  if (r.code !== 0) throw new Error(`kubeadm ${args.join(' ')} failed (${r.code}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** kubeadm writes the PKI and kubeconfigs into the root (--rootfs chroots; tests run as root). */
export function kubeadmPki(root: TempRoot, o: Parameters<typeof kubeadmConfigYaml>[0] = {}): void {
  writeConfig(root, o);
  kubeadmOk(['init', 'phase', 'certs', 'all', '--rootfs', root.dir, '--config', '/kubeadm.yaml']);
  kubeadmOk(['init', 'phase', 'kubeconfig', 'all', '--rootfs', root.dir, '--config', '/kubeadm.yaml']);
}

/** tsadm's certs and kubeconfig phases write the same PKI for the same node. */
export async function tsadmPki(root: TempRoot, now?: Date): Promise<void> {
  writeConfig(root);
  const cfg = fixtureInitConfig({ init: { localAPIEndpoint: { advertiseAddress: '10.0.0.5', bindPort: 6443 } } });
  const { ctx } = initCtxFor(cfg, root.dir, now ? { now } : {});
  await runCerts(ctx);
  await runKubeconfigs(ctx);
}

export interface ExpirationRow {
  readonly name: string;
  readonly expires: string;
  readonly residual: string;
  readonly ca?: string;
  readonly external: string;
  readonly missing: boolean;
}

/** `kubeadm certs check-expiration` on the root, parsed: [certificates, CAs]. */
export function kubeadmExpiration(root: TempRoot): { text: string; certificates: ExpirationRow[]; cas: ExpirationRow[] } {
  const text = kubeadmOk(['certs', 'check-expiration', '--rootfs', root.dir, '--config', '/kubeadm.yaml']);
  return { text, ...parseExpirationTable(text) };
}

/** Parses the check-expiration table (kubeadm's or tsadm's). */
export function parseExpirationTable(text: string): { certificates: ExpirationRow[]; cas: ExpirationRow[] } {
  const [certPart = '', caPart = ''] = text.split(/\n\s*\n/);
  const rows = (part: string, withCA: boolean): ExpirationRow[] =>
    part.split('\n').slice(1).filter((l) => l.trim() !== '').map((l) => {
      const missing = /^!MISSING! (\S+)/.exec(l);
      if (missing) return { name: missing[1] ?? '', expires: '', residual: '', external: '', missing: true };
      const m = withCA
        ? /^(\S+)\s+(\w{3} \d{2}, \d{4} \d{2}:\d{2} UTC)\s+(\S+)\s{3,}(\S*)\s+(yes|no)\s*$/.exec(l)
        : /^(\S+)\s+(\w{3} \d{2}, \d{4} \d{2}:\d{2} UTC)\s+(\S+)\s+(yes|no)\s*$/.exec(l);
      if (!m) throw new Error(`unparsable row: ${JSON.stringify(l)}`);
      return withCA
        ? { name: m[1] ?? '', expires: m[2] ?? '', residual: m[3] ?? '', ca: m[4] ?? '', external: m[5] ?? '', missing: false }
        : { name: m[1] ?? '', expires: m[2] ?? '', residual: m[3] ?? '', external: m[4] ?? '', missing: false };
    });
  return { certificates: rows(certPart, true), cas: rows(caPart, false) };
}
