/**
 * A rootfs wired to a real test apiserver (test/helpers/apiserver.ts), so the built CLI can run
 * whole commands — init's API phases, token, join discovery, reset — against the real thing:
 * the apiserver's CA is the cluster CA on the rootfs (everything tsadm issues is trusted by it)
 * and controlPlaneEndpoint is its loopback address. The advertise address is one of this
 * suite's own harness addresses (10.250.0.41), never contacted except by the phases the tests
 * skip or expect to fail.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { registerNode, startApiServer, type StartOptions, type TestApiServer } from '../../helpers/apiserver.js';
import { scratchDir, type Scratch } from '../../helpers/built-cli.js';

export interface ClusterRoot {
  readonly server: TestApiServer;
  readonly scratch: Scratch;
  /** The rootfs with the cluster CA in place. */
  readonly root: string;
  readonly config: string;
  readonly port: string;
  /** sha256:<hex> of the CA's public key, for --discovery-token-ca-cert-hash. */
  readonly caHash: string;
  readonly token: string;
  readonly certificateKey: string;
  stop(): Promise<void>;
}

function randomToken(): string {
  const pick = (n: number): string => Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(Math.random() * 36)]).join('');
  return `${pick(6)}.${pick(16)}`;
}

/** Skip phases that need a kubelet or static pods that do not run here. */
export const NO_KUBELET = 'preflight,wait-for-kubelet,wait-control-plane';

export async function startClusterRoot(opts: StartOptions = {}): Promise<ClusterRoot> {
  const server = await startApiServer(opts);
  const scratch = scratchDir('tsadm-cluster-root-');
  const port = new URL(server.url).port;
  const caHash = `sha256:${createHash('sha256').update(new X509Certificate(server.caPem).publicKey.export({ type: 'spki', format: 'der' })).digest('hex')}`;
  const root = path.join(scratch.dir, 'root');
  mkdirSync(path.join(root, 'etc/kubernetes/pki'), { recursive: true });
  writeFileSync(path.join(root, 'etc/kubernetes/pki/ca.crt'), server.caPem);
  writeFileSync(path.join(root, 'etc/kubernetes/pki/ca.key'), server.caKeyPem, { mode: 0o600 });
  const token = randomToken();
  const certificateKey = createHash('sha256').update(`${Math.random()}${Date.now()}`).digest('hex');
  const config = path.join(scratch.dir, 'config.yaml');
  writeFileSync(config, `apiVersion: kubeadm.k8s.io/v1beta2
kind: InitConfiguration
bootstrapTokens:
- token: ${token}
certificateKey: ${certificateKey}
localAPIEndpoint:
  advertiseAddress: 10.250.0.41
  bindPort: ${port}
nodeRegistration:
  name: n1
  criSocket: /run/containerd/containerd.sock
---
apiVersion: kubeadm.k8s.io/v1beta2
kind: ClusterConfiguration
kubernetesVersion: v1.20.2
controlPlaneEndpoint: 127.0.0.1:${port}
`);
  // mark-control-plane patches the Node, which a kubelet would have registered (with its label).
  await registerNode(server, 'n1');
  return {
    server, scratch, root, config, port, caHash, token, certificateKey,
    stop: async () => {
      await server.stop();
      scratch.cleanup();
    },
  };
}

const LISTS = [
  '/api/v1/nodes', '/api/v1/namespaces',
  '/apis/rbac.authorization.k8s.io/v1/clusterroles', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
  ...['kube-system', 'kube-public', 'default'].flatMap((ns) => [
    `/api/v1/namespaces/${ns}/configmaps`, `/api/v1/namespaces/${ns}/secrets`, `/api/v1/namespaces/${ns}/serviceaccounts`,
    `/api/v1/namespaces/${ns}/services`, `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`,
    `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, `/apis/apps/v1/namespaces/${ns}/deployments`,
    `/apis/apps/v1/namespaces/${ns}/daemonsets`,
  ]),
];

/** Every object tsadm creates or touches, as "list/name" → resourceVersion. */
export async function clusterSnapshot(server: TestApiServer): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const list of LISTS) {
    const r = await server.request('GET', list, { auth: 'admin' });
    if (r.status !== 200) throw new Error(`GET ${list}: ${r.status}`);
    for (const item of r.body.items as { metadata: { name: string; resourceVersion: string } }[]) out[`${list}/${item.metadata.name}`] = item.metadata.resourceVersion;
  }
  return out;
}
