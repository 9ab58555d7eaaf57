/**
 * Throwaway PKI and loopback HTTPS servers for the discovery and etcd tests: an API-server look-alike
 * that serves a cluster-info ConfigMap, records every request (so tests can prove no credential
 * reached it), and can misbehave on purpose (stall, answer differently the second time).
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateKeyPair, encodePrivateKeyPem } from '../../src/pki/keys.js';
import { signCertificate } from '../../src/pki/sign.js';
import { randomSerial } from '../../src/pki/serial.js';
import type { Certificate } from '../../src/pki/certificate.js';
import type { KeyObject } from 'node:crypto';
import { computeDetachedSignature } from '../../src/token/jws.js';

export interface TestCA {
  readonly cert: Certificate;
  readonly key: KeyObject;
  readonly pem: string;
}

export interface TestPair {
  readonly certPem: string;
  readonly keyPem: string;
}

const HOUR = 3600_000;

export async function makeCA(commonName: string): Promise<TestCA> {
  const pair = await generateKeyPair('ECDSA-P256');
  const now = Date.now();
  const cert = signCertificate({
    subject: { commonName, organization: [] }, serial: randomSerial(), notBefore: new Date(now - HOUR), notAfter: new Date(now + 24 * HOUR),
    isCA: true, extKeyUsage: [], dnsNames: [], ipAddresses: [],
  }, pair.publicKey, { privateKey: pair.privateKey });
  return { cert, key: pair.privateKey, pem: cert.pem };
}

export async function issue(ca: TestCA, commonName: string, opts: { ips?: string[]; dns?: string[]; usages?: ('serverAuth' | 'clientAuth')[] } = {}): Promise<TestPair> {
  const pair = await generateKeyPair('ECDSA-P256');
  const now = Date.now();
  const cert = signCertificate({
    subject: { commonName, organization: [] }, serial: randomSerial(), notBefore: new Date(now - HOUR), notAfter: new Date(now + 24 * HOUR),
    isCA: false, extKeyUsage: opts.usages ?? ['serverAuth'], dnsNames: opts.dns ?? ['localhost'], ipAddresses: opts.ips ?? ['127.0.0.1'],
  }, pair.publicKey, { privateKey: ca.key, certificate: ca.cert });
  return { certPem: cert.pem, keyPem: encodePrivateKeyPem(pair.privateKey) };
}

/** cluster-info's kubeconfig text as kubeadm writes it. */
export function clusterInfoKubeconfig(server: string, caPem: string): string {
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
    `    server: ${server}`,
    '  name: ""',
    'contexts: null',
    'current-context: ""',
    'kind: Config',
    'preferences: {}',
    'users: null',
    '',
  ].join('\n');
}

interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
}

export interface FakeApiServer {
  readonly url: string;
  readonly endpoint: string;
  readonly requests: SeenRequest[];
  /** The ConfigMap data served for cluster-info (change it between calls to simulate a race or an attack). */
  data: Record<string, string> | undefined;
  /** Answer status for cluster-info (default 200). */
  status: number;
  /** When true, accept connections and never answer. */
  stall: boolean;
  /** Called per cluster-info request; may replace `data` for that answer. */
  onClusterInfo?: (n: number) => Record<string, string> | undefined;
  close(): Promise<void>;
}

/** An HTTPS server on 127.0.0.1 with the given serving pair. */
export async function startFakeApiServer(pair: TestPair): Promise<FakeApiServer> {
  let count = 0;
  const state: FakeApiServer = {
    url: '', endpoint: '', requests: [], data: undefined, status: 200, stall: false,
    close: () => Promise.resolve(),
  };
  const server = https.createServer({ cert: pair.certPem, key: pair.keyPem }, (req, res) => {
    state.requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization });
    if (state.stall) return; // never answer
    if (req.url?.startsWith('/api/v1/namespaces/kube-public/configmaps/cluster-info')) {
      count += 1;
      const data = state.onClusterInfo?.(count) ?? state.data;
      if (state.status !== 200 || data === undefined) {
        res.writeHead(state.status === 200 ? 404 : state.status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', code: state.status === 200 ? 404 : state.status }));
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'kube-public' }, data }));
      return;
    }
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end('{}');
  });
  const sockets = new Set<{ destroy(): void; on(e: 'close', f: () => void): unknown }>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  state.close = () => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    server.close(() => resolve());
  });
  return Object.assign(state, { url: `https://127.0.0.1:${port}`, endpoint: `127.0.0.1:${port}` });
}

/** cluster-info data signed for a token (the controller-manager's bootstrapsigner output). */
export async function signedClusterInfo(kubeconfig: string, tokens: ReadonlyArray<{ id: string; secret: string }>): Promise<Record<string, string>> {
  const data: Record<string, string> = { kubeconfig };
  for (const t of tokens) data[`jws-kubeconfig-${t.id}`] = await computeDetachedSignature(kubeconfig, t.id, t.secret);
  return data;
}
