/**
 * The external-CA workflow end to end on harness machine c2: an organisation's CAs (made with
 * openssl, keys kept outside /etc/kubernetes), `tsadm certs generate-csr`, every CSR signed with
 * `openssl x509 -req`, the certificates put where kubeadm's docs say, then `tsadm init` in
 * external-CA mode (ca.crt without ca.key) brings up a working control plane without signing
 * anything itself. Needs `npm run build` (machines run bin/tsadm).
 */
import {
  createMachine, destroyMachine, kubeadmConfig, kubectl, machineExec, provision, nodeBin, requireComponents, tsadm, tsadmBin, waitFor,
  writeSharedFile, type Machine,
} from './harness.js';

const CP: Machine = { name: 'c2', ip: '10.250.0.32' };
const MIN = 60_000;

/** Runs inside the machine: the outside PKI, the node's CA certificates, generate-csr, signing. */
const SIGN_SCRIPT = String.raw`
set -eu
CFG=$1; TSADM="$3 $2"
O=/var/lib/outside-pki; P=/etc/kubernetes/pki; K=/etc/kubernetes
mkdir -p $O/etcd $P/etcd
ca() {
  openssl req -x509 -newkey rsa:2048 -nodes -keyout $O/$1.key -out $O/$1.crt -days 3650 -subj "/O=Example Corp/CN=$2" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign 2>/dev/null
  cp $O/$1.crt $P/$1.crt
}
ca ca kubernetes; ca front-proxy-ca front-proxy-ca; ca etcd/ca etcd-ca
$TSADM certs generate-csr --config $CFG
sign() {
  printf 'keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=%s\n' "$4" > /tmp/ext.cnf
  openssl x509 -req -in $1 -CA $O/$2.crt -CAkey $O/$2.key -CAcreateserial -days 365 -copy_extensions copyall -extfile /tmp/ext.cnf -out $3 2>/dev/null
}
sign $P/apiserver.csr ca $P/apiserver.crt serverAuth
sign $P/apiserver-kubelet-client.csr ca $P/apiserver-kubelet-client.crt clientAuth
sign $P/front-proxy-client.csr front-proxy-ca $P/front-proxy-client.crt clientAuth
sign $P/etcd/server.csr etcd/ca $P/etcd/server.crt serverAuth,clientAuth
sign $P/etcd/peer.csr etcd/ca $P/etcd/peer.crt serverAuth,clientAuth
sign $P/etcd/healthcheck-client.csr etcd/ca $P/etcd/healthcheck-client.crt clientAuth
sign $P/apiserver-etcd-client.csr etcd/ca $P/apiserver-etcd-client.crt clientAuth
for c in admin kubelet controller-manager scheduler; do
  sign $K/$c.conf.csr ca /tmp/$c.crt clientAuth
  # the docs' step: the certificate, base64-encoded, into users > user > client-certificate-data
  sed -i "s|^    client-key-data:|    client-certificate-data: $(base64 -w0 /tmp/$c.crt)\n    client-key-data:|" $K/$c.conf
done
ls $P/*.key $P/etcd/*.key
`;

let configPath: string;
let initOut = '';

beforeAll(async () => {
  await provision();
  requireComponents();
  await destroyMachine(CP.name).catch(() => undefined);
  await createMachine(CP.name, CP.ip);
  configPath = writeSharedFile(`tsadm-${CP.name}.yaml`, await kubeadmConfig(CP.ip, CP.name));
}, 15 * MIN);

afterAll(async () => {
  await destroyMachine(CP.name).catch(() => undefined);
}, 5 * MIN);

describe('external CA: generate-csr, openssl signs, tsadm init', () => {
  test('generate-csr output signed by an outside CA leaves no CA key on the node', async () => {
    const script = writeSharedFile(`external-ca-${CP.name}.sh`, SIGN_SCRIPT);
    const r = await machineExec(CP.name, ['sh', script, configPath, tsadmBin(), nodeBin()], { timeoutMs: 3 * MIN });
    expect(r.stdout).toContain('[certs] Generating "apiserver" key and CSR');
    expect(r.stdout).toContain('[kubeconfig] Generating "admin.conf" key and CSR');
    const keys = r.stdout.split('\n').filter((l) => l.endsWith('.key'));
    expect(keys).not.toContain('/etc/kubernetes/pki/ca.key');
    expect(keys).not.toContain('/etc/kubernetes/pki/front-proxy-ca.key');
    expect(keys).not.toContain('/etc/kubernetes/pki/etcd/ca.key');
    expect(keys).toContain('/etc/kubernetes/pki/sa.key');
  }, 5 * MIN);

  test('tsadm init in external-CA mode uses every file as it is and the control plane works', async () => {
    initOut = (await tsadm(CP.name, ['init', '--config', configPath], { timeoutMs: 6 * MIN })).stdout;
    expect(initOut).toContain('Your Kubernetes control-plane has initialized successfully!');
    expect(initOut).toContain('[certs] Using existing ca keyless certificate authority');
    expect(initOut).toContain('[kubeconfig] External CA mode: Using user provided admin.conf');
    expect(initOut).not.toMatch(/\[(certs|kubeconfig)\] (Generating|Writing)/);
    await waitFor(async () => {
      const r = await kubectl(CP.name, ['-n', 'kube-system', 'get', 'pods', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.phase} {end}'], { reject: false });
      return ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].every((c) => r.includes(`${c}-${CP.name}=Running`));
    }, 4 * MIN, 'control-plane mirror pods Running');
    // admin.conf's certificate from the outside CA is accepted; the node registered with its own
    expect(await kubectl(CP.name, ['get', '--raw', '/readyz'])).toBe('ok');
    expect(await kubectl(CP.name, ['get', 'node', CP.name, '-o', 'jsonpath={.metadata.name}'])).toBe(CP.name);
    // the controller-manager must not sign anything: its signing flags are empty
    const kcm = (await machineExec(CP.name, ['cat', '/etc/kubernetes/manifests/kube-controller-manager.yaml'])).stdout;
    expect(kcm).toContain('- --cluster-signing-cert-file=\n');
    expect(kcm).toContain('- --cluster-signing-key-file=\n');
  }, 10 * MIN);

  test('check-expiration flags the outside CA\'s certificates as externally managed; renew refuses them', async () => {
    const json = JSON.parse((await tsadm(CP.name, ['certs', 'check-expiration', '-o', 'json'])).stdout) as {
      certificates: { name: string; externallyManaged: boolean; missing: boolean }[];
      certificateAuthorities: { name: string; externallyManaged: boolean }[];
    };
    expect(json.certificates.filter((c) => c.missing)).toEqual([]);
    expect(json.certificates.every((c) => c.externallyManaged)).toBe(true);
    expect(json.certificateAuthorities.every((c) => c.externallyManaged)).toBe(true);
    const renew = await tsadm(CP.name, ['certs', 'renew', 'apiserver'], { reject: false });
    expect(renew.exitCode).toBe(1);
    expect(renew.stderr).toContain("Detected external ca, certificate for serving the Kubernetes API can't be renewed");
  }, 2 * MIN);
});
