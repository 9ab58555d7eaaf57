/**
 * Token discovery against loopback TLS servers: the happy path, each trust failure kubeadm names
 * (pin, JWS, changed answer, a server the pinned CA does not vouch for), timeouts, and that no
 * request ever carries a credential.
 */
import { discoverByToken, type TokenDiscoveryInput } from '../../../src/discovery/discovery.js';
import { httpsGet } from '../../../src/discovery/https-get.js';
import { caCertHash } from '../../../src/pki/hash.js';
import {
  clusterInfoKubeconfig, issue, makeCA, signedClusterInfo, startFakeApiServer, type FakeApiServer, type TestCA, type TestPair,
} from '../../helpers/tls-fixtures.js';
import { tsadmErrorOf } from '../../helpers/tsadm-error.js';

const TOKEN = { id: 'abcdef', secret: '0123456789abcdef' };
const silent = { info: () => undefined, warn: () => undefined, debug: () => undefined };

let clusterCA: TestCA;
let otherCA: TestCA;
let serving: TestPair;
let servingByOther: TestPair;
const servers: FakeApiServer[] = [];

beforeAll(async () => {
  clusterCA = await makeCA('kubernetes');
  otherCA = await makeCA('attacker');
  serving = await issue(clusterCA, 'kube-apiserver');
  servingByOther = await issue(otherCA, 'kube-apiserver');
});

afterEach(async () => {
  while (servers.length > 0) await servers.pop()?.close();
});

async function server(pair: TestPair): Promise<FakeApiServer> {
  const s = await startFakeApiServer(pair);
  servers.push(s);
  return s;
}

function input(s: FakeApiServer, over: Partial<TokenDiscoveryInput> = {}): TokenDiscoveryInput {
  return {
    endpoint: s.endpoint, tokenId: TOKEN.id, tokenSecret: TOKEN.secret, caCertHashes: [caCertHash(clusterCA.pem)],
    unsafeSkipCAVerification: false, timeoutMs: 5000, pollIntervalMs: 50, ...over,
  };
}

const failure = (p: Promise<unknown>) => tsadmErrorOf(p, 'discovery to fail');

function expectNoCredentials(s: FakeApiServer): void {
  expect(s.requests.length).toBeGreaterThan(0);
  for (const r of s.requests) expect(r.authorization).toBeUndefined();
}

describe('token discovery', () => {
  test('verifies JWS and pin, re-fetches over pinned TLS, returns the server inside cluster-info', async () => {
    const s = await server(serving);
    // cluster-info may name another address than the one typed on the command line: that one is used.
    const kubeconfig = clusterInfoKubeconfig('https://127.0.0.1:6443', clusterCA.pem);
    s.data = await signedClusterInfo(kubeconfig, [TOKEN, { id: 'zzzzzz', secret: 'aaaaaaaaaaaaaaaa' }]);
    const result = await discoverByToken(input(s), { log: silent });
    expect(result.server).toBe('https://127.0.0.1:6443');
    expect(result.caPem).toBe(clusterCA.pem);
    expect(result.kubeconfigText).toBe(kubeconfig);
    // Two anonymous GETs: the unverified one and the pinned one.
    expect(s.requests.map((r) => r.path)).toEqual([
      '/api/v1/namespaces/kube-public/configmaps/cluster-info', '/api/v1/namespaces/kube-public/configmaps/cluster-info',
    ]);
    expectNoCredentials(s);
  });

  test('any of several pins may match, case-insensitively', async () => {
    const s = await server(serving);
    s.data = await signedClusterInfo(clusterInfoKubeconfig(s.url, clusterCA.pem), [TOKEN]);
    const pins = [caCertHash(otherCA.pem), caCertHash(clusterCA.pem).toUpperCase().replace('SHA256', 'sha256')];
    await expect(discoverByToken(input(s, { caCertHashes: pins }), { log: silent })).resolves.toMatchObject({ server: s.url });
  });

  test('a CA that does not match the pin fails before any credential is used, naming the hash it saw', async () => {
    const s = await server(serving);
    s.data = await signedClusterInfo(clusterInfoKubeconfig(s.url, clusterCA.pem), [TOKEN]);
    const wrongPin = `sha256:${'1'.repeat(64)}`;
    const err = await failure(discoverByToken(input(s, { caCertHashes: [wrongPin] }), { log: silent }));
    expect(err.code).toBe('E_TRUST');
    expect(err.message).toContain(`none of the public keys "${caCertHash(clusterCA.pem)}" are pinned`);
    expect(err.message).not.toContain(TOKEN.secret);
    // Only the unverified fetch happened; the pinned one was never attempted.
    expect(s.requests).toHaveLength(1);
    expectNoCredentials(s);
  });

  test('a forged signature (another secret) is refused', async () => {
    const s = await server(serving);
    s.data = await signedClusterInfo(clusterInfoKubeconfig(s.url, clusterCA.pem), [{ id: TOKEN.id, secret: 'ffffffffffffffff' }]);
    const err = await failure(discoverByToken(input(s), { log: silent }));
    expect(err.code).toBe('E_TRUST');
    expect(err.message).toBe("failed to verify JWS signature of received cluster info object, can't trust this API Server");
    expect(`${err.message} ${err.hint}`).not.toContain(TOKEN.secret);
    expectNoCredentials(s);
  });

  test('a cluster-info whose kubeconfig was changed after signing is refused', async () => {
    const s = await server(serving);
    const signed = await signedClusterInfo(clusterInfoKubeconfig(s.url, clusterCA.pem), [TOKEN]);
    s.data = { ...signed, kubeconfig: clusterInfoKubeconfig(s.url, otherCA.pem) };
    const err = await failure(discoverByToken(input(s, { caCertHashes: [caCertHash(otherCA.pem)] }), { log: silent }));
    expect(err.message).toContain('failed to verify JWS signature');
  });

  test('a missing signature for this token while others are signed: invalid token after the grace period', async () => {
    const s = await server(serving);
    s.data = await signedClusterInfo(clusterInfoKubeconfig(s.url, clusterCA.pem), [{ id: 'zzzzzz', secret: 'aaaaaaaaaaaaaaaa' }]);
    const started = Date.now();
    const err = await failure(discoverByToken(input(s, { missingSignatureGraceMs: 300 }), { log: silent }));
    expect(err.code).toBe('E_TRUST');
    expect(err.message).toBe('token id "abcdef" is invalid for this cluster or it has expired. Use "tsadm token create" on the control-plane node to create a new valid token');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  test('no signature at all (controller-manager not signing yet) waits, then reports the token within the timeout', async () => {
    const s = await server(serving);
    s.data = { kubeconfig: clusterInfoKubeconfig(s.url, clusterCA.pem) };
    const started = Date.now();
    const err = await failure(discoverByToken(input(s, { timeoutMs: 800 }), { log: silent }));
    expect(err.message).toContain('token id "abcdef" is invalid');
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  test('the signature appears later (bootstrapsigner lag): discovery keeps polling and succeeds', async () => {
    const s = await server(serving);
    const kubeconfig = clusterInfoKubeconfig(s.url, clusterCA.pem);
    const signed = await signedClusterInfo(kubeconfig, [TOKEN]);
    s.onClusterInfo = (n) => (n < 3 ? { kubeconfig } : signed);
    await expect(discoverByToken(input(s), { log: silent })).resolves.toMatchObject({ server: s.url });
    expect(s.requests.length).toBeGreaterThanOrEqual(4);
  });

  test('a server whose certificate the cluster-info CA does not vouch for is refused at the pinned fetch', async () => {
    // A man in the middle relays the genuine (signed, pinned) cluster-info but presents its own certificate.
    const s = await server(servingByOther);
    s.data = await signedClusterInfo(clusterInfoKubeconfig(s.url, clusterCA.pem), [TOKEN]);
    const err = await failure(discoverByToken(input(s), { log: silent }));
    expect(err.code).toBe('E_TRUST');
    expect(err.message).toContain("the API server's TLS certificate does not validate against the cluster CA");
    // The pinned TLS handshake failed, so only the first request reached the handler.
    expect(s.requests).toHaveLength(1);
    expectNoCredentials(s);
  });

  test('an answer that differs between the unverified and the pinned fetch is refused', async () => {
    const s = await server(serving);
    const first = clusterInfoKubeconfig(s.url, clusterCA.pem);
    const second = `${first}# changed\n`;
    const [signedFirst, signedSecond] = await Promise.all([signedClusterInfo(first, [TOKEN]), signedClusterInfo(second, [TOKEN])]);
    s.onClusterInfo = (n) => (n === 1 ? signedFirst : signedSecond);
    const err = await failure(discoverByToken(input(s), { log: silent }));
    expect(err.code).toBe('E_TRUST');
    expect(err.message).toContain('differs from the validated one');
  });

  test('a stalling server: discovery gives up within its timeout', async () => {
    const s = await server(serving);
    s.stall = true;
    const started = Date.now();
    const err = await failure(discoverByToken(input(s, { timeoutMs: 700 }), { log: silent }));
    const took = Date.now() - started;
    expect(err.code).toBe('E_TIMEOUT');
    expect(err.message).toContain('could not fetch cluster-info');
    expect(took).toBeLessThan(2500);
  });

  test('nothing listening: a timeout naming the network error', async () => {
    const s = await server(serving);
    const endpoint = s.endpoint;
    await s.close();
    servers.pop();
    const err = await failure(discoverByToken({ ...input(s, { timeoutMs: 400 }), endpoint }, { log: silent }));
    expect(err.code).toBe('E_TIMEOUT');
    expect(err.message).toMatch(/ECONNREFUSED/);
  });

  test('no pins: refused unless unsafe skip is explicit, which warns and then succeeds', async () => {
    const s = await server(serving);
    s.data = await signedClusterInfo(clusterInfoKubeconfig(s.url, clusterCA.pem), [TOKEN]);
    const err = await failure(discoverByToken(input(s, { caCertHashes: [] }), { log: silent }));
    expect(err.code).toBe('E_CONFIG_INVALID');
    const warnings: string[] = [];
    const result = await discoverByToken(input(s, { caCertHashes: [], unsafeSkipCAVerification: true }), { log: { ...silent, warn: (m: string) => warnings.push(m) } });
    expect(result.caPem).toBe(clusterCA.pem);
    expect(warnings.join('\n')).toContain('not pinned');
    expectNoCredentials(s);
  });

  test('cluster-info with two clusters is refused', async () => {
    const s = await server(serving);
    const one = clusterInfoKubeconfig(s.url, clusterCA.pem);
    const two = one.replace('  name: ""\n', `  name: ""\n- cluster:\n    server: ${s.url}\n  name: other\n`);
    s.data = await signedClusterInfo(two, [TOKEN]);
    const err = await failure(discoverByToken(input(s), { log: silent }));
    expect(err.message).toBe('expected exactly one cluster in the cluster-info ConfigMap, found 2');
  });
});

describe('httpsGet', () => {
  test('refuses to send a bearer token over an unverified connection', async () => {
    const s = await server(serving);
    await expect(httpsGet(`${s.url}/x`, { trust: { kind: 'insecure' }, timeoutMs: 1000, bearerToken: 'abcdef.0123456789abcdef' })).rejects.toThrow('refusing to send credentials to an unverified server');
    expect(s.requests).toHaveLength(0);
  });

  test('with a pinned CA the token is sent; a server of another CA never sees it', async () => {
    const good = await server(serving);
    const res = await httpsGet(`${good.url}/x`, { trust: { kind: 'ca', pem: clusterCA.pem }, timeoutMs: 2000, bearerToken: 't0k3n' });
    expect(res.status).toBe(404);
    expect(good.requests[0]?.authorization).toBe('Bearer t0k3n');
    const evil = await server(servingByOther);
    await expect(httpsGet(`${evil.url}/x`, { trust: { kind: 'ca', pem: clusterCA.pem }, timeoutMs: 2000, bearerToken: 't0k3n' })).rejects.toThrow();
    expect(evil.requests).toHaveLength(0);
  });

  test('the system CA store does not trust a private cluster CA', async () => {
    const s = await server(serving);
    await expect(httpsGet(`${s.url}/x`, { trust: { kind: 'system' }, timeoutMs: 2000 })).rejects.toThrow();
    expect(s.requests).toHaveLength(0);
  });
});
