import path from 'node:path';
import { PORTS } from '../constants.js';
import { TsadmError } from '../errors.js';
import type { Host } from '../host/host.js';
import { joinHostPort } from '../net/host-port.js';
import type { EtcdTls } from './transport.js';

/** https://<advertise address>:2379 (kubeadm's GetClientURLByIP). */
export function etcdClientURL(advertiseAddress: string): string {
  return `https://${joinHostPort(advertiseAddress, PORTS.etcdClient)}`;
}

/** https://<advertise address>:2380 (kubeadm's GetPeerURL). */
export function etcdPeerURL(advertiseAddress: string): string {
  return `https://${joinHostPort(advertiseAddress, PORTS.etcdPeer)}`;
}

/** The client TLS material kubeadm uses for membership calls: etcd CA + healthcheck-client pair. */
export async function etcdTlsFromDir(host: Pick<Host, 'readFile'>, certificatesDir: string): Promise<EtcdTls> {
  const file = (name: string): string => path.posix.join(certificatesDir, 'etcd', name);
  const [ca, cert, key] = await Promise.all(['ca.crt', 'healthcheck-client.crt', 'healthcheck-client.key'].map((n) => host.readFile(file(n))));
  if (!ca || !cert || !key) {
    const missing = [['ca.crt', ca], ['healthcheck-client.crt', cert], ['healthcheck-client.key', key]].filter(([, v]) => !v).map(([n]) => file(n as string));
    throw new TsadmError('E_PRECONDITION', `cannot talk to etcd: missing ${missing.join(', ')}`, {
      hint: 'the etcd client certificates are created by the certs phase (tsadm join phase control-plane-prepare certs)',
    });
  }
  return { ca, cert, key };
}
