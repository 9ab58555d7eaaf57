/**
 * The PKI the renew --auto tests start from: made by tsadm's phases some days short of a year ago
 * (so every leaf expires in `daysLeft` days), with FRESH certificates renewed just now (not due)
 * and DUE ones left as they were; kube-scheduler's static pod manifest in place for a stand-in
 * kubelet. openssl reads the dates (the oracle); files are fingerprinted by hash and mtime.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { KC, PKI, runCli, tsadmPki } from './certs-lifecycle.js';
import { listFiles } from './pki-check.js';
import { StandInKubelet } from './stand-in-kubelet.js';
import { tempRoot, type TempRoot } from './temp-root.js';

export const DAY = 86_400_000;
/** Renewed just before the test: not due within 30 days. */
export const FRESH = ['apiserver', 'apiserver-kubelet-client', 'apiserver-etcd-client', 'front-proxy-client', 'etcd-server', 'etcd-peer', 'controller-manager.conf'];
/** Left at 10 days: due within 30 days. */
export const DUE = ['admin.conf', 'etcd-healthcheck-client', 'scheduler.conf'];
const FILE_OF: Record<string, string> = {
  'admin.conf': `${KC}/admin.conf`, 'scheduler.conf': `${KC}/scheduler.conf`, 'controller-manager.conf': `${KC}/controller-manager.conf`,
  'etcd-healthcheck-client': `${PKI}/etcd/healthcheck-client.crt`, 'etcd-server': `${PKI}/etcd/server.crt`, 'etcd-peer': `${PKI}/etcd/peer.crt`,
};
export const fileOf = (name: string): string => FILE_OF[name] ?? `${PKI}/${name}.crt`;

/** NotAfter by openssl (the oracle), for a .crt or a kubeconfig's client certificate. */
export function notAfter(root: TempRoot, name: string): number {
  const file = root.at(fileOf(name));
  let pem = readFileSync(file, 'utf8');
  if (file.endsWith('.conf')) pem = Buffer.from(/client-certificate-data: (\S+)/.exec(pem)?.[1] ?? '', 'base64').toString('utf8');
  const out = execFileSync('openssl', ['x509', '-noout', '-enddate'], { input: pem, encoding: 'utf8' });
  return Date.parse(out.replace('notAfter=', '').trim());
}

/** Every file under the root with its hash and mtime. */
export function fingerprint(root: TempRoot): Map<string, string> {
  const m = new Map<string, string>();
  for (const f of listFiles(root.dir)) {
    const real = path.join(root.dir, f);
    m.set(f, `${createHash('sha256').update(readFileSync(real)).digest('hex')} ${statSync(real).mtimeMs}`);
  }
  return m;
}

/** A PKI whose leaves expire in `daysLeft` days, FRESH ones renewed now; kube-scheduler's manifest in place. */
export async function makeRoot(daysLeft: number, port: number): Promise<TempRoot> {
  const root = tempRoot();
  await tsadmPki(root, new Date(Date.now() - (365 - daysLeft) * DAY));
  for (const name of FRESH) {
    const r = await runCli(['certs', 'renew', name, '--rootfs', root.dir, '--config', root.at('/kubeadm.yaml')]);
    if (r.code !== 0) throw new Error(r.stderr);
  }
  new StandInKubelet(root, port).writeSchedulerManifest();
  return root;
}


/** The PEM certificate and key of an entry (a .crt/.key pair, or a kubeconfig's client credentials). */
function pairOf(root: Pick<TempRoot, 'at'>, name: string): { cert: string; key: string } {
  const file = root.at(fileOf(name));
  const text = readFileSync(file, 'utf8');
  if (!file.endsWith('.conf')) return { cert: text, key: readFileSync(file.replace(/\.crt$/, '.key'), 'utf8') };
  const field = (k: string) => Buffer.from(new RegExp(`${k}: (\\S+)`).exec(text)?.[1] ?? '', 'base64').toString('utf8');
  return { cert: field('client-certificate-data'), key: field('client-key-data') };
}

/** Whether the certificate's public key is the key's (openssl computes both). */
export function keyMatches(root: Pick<TempRoot, 'at'>, name: string): boolean {
  const { cert, key } = pairOf(root, name);
  const fromCert = execFileSync('openssl', ['x509', '-noout', '-pubkey'], { input: cert, encoding: 'utf8' });
  const fromKey = execFileSync('openssl', ['pkey', '-pubout'], { input: key, encoding: 'utf8' });
  return fromCert === fromKey;
}
