/**
 * Images against the real containerd of harness machine i1 (10.250.0.121): a plain-HTTP registry
 * (Debian's docker-registry) on the machine's own loopback, filled with skopeo from the
 * provisioned OCI archives, reached by containerd through certs.d/127.0.0.1:5000/hosts.toml.
 *   `tsadm config images pull` pulls every image of v1.20.2 through the CRI (present afterwards);
 *   `tsadm init phase preflight` pulls a missing image with IfNotPresent, and with Never pulls
 *   nothing (kubeadm's ImagePullCheck skips every image under Never).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { cacheDir, createMachine, destroyMachine, kubeadmConfig, machineExec, machineImages, provision, requireComponents, tsadm, waitFor, writeSharedFile, type Machine } from './harness.js';

const I1: Machine = { name: 'i1', ip: '10.250.0.121' };
const MIN = 60_000;
const REGISTRY = '127.0.0.1:5000';
const REPO = `${REGISTRY}/k8s`;
const DIR = '/var/lib/tsadm-e2e-registry';
const CRI = '/run/containerd/containerd.sock';
const WANT = [
  `${REPO}/kube-apiserver:v1.20.2`, `${REPO}/kube-controller-manager:v1.20.2`, `${REPO}/kube-scheduler:v1.20.2`,
  `${REPO}/kube-proxy:v1.20.2`, `${REPO}/pause:3.2`, `${REPO}/etcd:3.4.13-0`, `${REPO}/coredns:1.7.0`,
];
const REGISTRY_CONFIG = `version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: ${DIR}/data\nhttp:\n  addr: ${REGISTRY}\n`;
const HOSTS_TOML = `server = "http://${REGISTRY}"\n\n[host."http://${REGISTRY}"]\n  capabilities = ["pull", "resolve"]\n`;
let registryPid = '';

/** Write TEXT to FILE inside machine i1. */
async function writeInMachine(file: string, text: string): Promise<void> {
  await machineExec(I1.name, ['sh', '-c', `mkdir -p "$(dirname "$1")" && cat >"$1"`, 'sh', file], { input: text });
}

/** The image name an OCI archive of the cache carries (io.containerd.image.name of its index). */
function archiveName(tar: string): string {
  const index = JSON.parse(execFileSync('tar', ['xOf', tar, './index.json'], { encoding: 'utf8' })) as { manifests: Array<{ annotations?: Record<string, string> }> };
  const name = index.manifests[0]?.annotations?.['io.containerd.image.name'];
  if (!name) throw new Error(`no image name in ${tar}`);
  return name;
}

/** The e2e configuration of i1 for v1.20.2 from our registry, as v1beta3 (for nodeRegistration.imagePullPolicy). */
async function preflightConfig(policy: 'IfNotPresent' | 'Never'): Promise<string> {
  const text = (await kubeadmConfig(I1.ip, I1.name)).replaceAll('kubeadm.k8s.io/v1beta2', 'kubeadm.k8s.io/v1beta3')
    .replace('imageRepository: registry.local/k8s', `imageRepository: ${REPO}`)
    .replace(`  criSocket: ${CRI}\n`, `  criSocket: ${CRI}\n  imagePullPolicy: ${policy}\n`)
    // Here every image is in the registry: a failed pull must fail the preflight.
    .replace('  ignorePreflightErrors:\n  - ImagePull\n', '');
  if (!text.includes(`imagePullPolicy: ${policy}`) || !text.includes(`imageRepository: ${REPO}`) || text.includes('ignorePreflightErrors')) throw new Error(`unexpected e2e config:\n${text}`);
  return writeSharedFile(`images-${policy}.yaml`, text);
}

beforeAll(async () => {
  await provision();
  requireComponents();
  await destroyMachine(I1.name).catch(() => undefined);
  await createMachine(I1.name, I1.ip);
  await writeInMachine(`${DIR}/config.yml`, REGISTRY_CONFIG);
  await writeInMachine(`/etc/containerd/certs.d/${REGISTRY}/hosts.toml`, HOSTS_TOML);
  registryPid = (await machineExec(I1.name, ['sh', '-c', `docker-registry serve ${DIR}/config.yml >${DIR}/registry.log 2>&1 </dev/null & echo $!`])).stdout.trim();
  await waitFor(async () => (await machineExec(I1.name, ['curl', '-sf', `http://${REGISTRY}/v2/`], { reject: false })).exitCode === 0, 30_000, 'the registry');
  const archives = [path.join(cacheDir(), 'images-v1.20.2'), path.join(cacheDir(), 'images-standins')]
    .flatMap((d) => readdirSync(d).filter((f) => f.endsWith('.tar')).map((f) => path.join(d, f)));
  for (const tar of archives) {
    const target = archiveName(tar).replace('registry.local/k8s/', `${REPO}/`);
    await machineExec(I1.name, ['skopeo', 'copy', '-q', '--dest-tls-verify=false', `oci-archive:${tar}`, `docker://${target}`], { timeoutMs: 3 * MIN });
  }
  // The machine came up with the same images imported (same blobs, also under the CRI's
  // sha256:<id> names): remove every image record and collect the content, so the pulls below
  // download every layer from the registry.
  await machineExec(I1.name, ['ctr', '-n', 'k8s.io', 'images', 'rm', '--sync', ...(await machineImages(I1.name))]);
  expect(await machineImages(I1.name)).toEqual([]);
}, 20 * MIN);

afterAll(async () => {
  if (registryPid) await machineExec(I1.name, ['kill', registryPid], { reject: false });
  await destroyMachine(I1.name).catch(() => undefined);
}, 5 * MIN);

test('config images pull: every image of v1.20.2 pulled through the CRI into containerd', async () => {
  expect((await machineImages(I1.name)).filter((i) => i.startsWith(REPO))).toEqual([]);
  const r = await tsadm(I1.name, ['config', 'images', 'pull', '--image-repository', REPO, '--kubernetes-version', 'v1.20.2', '--cri-socket', CRI], { timeoutMs: 5 * MIN });
  expect(r.stdout.trim().split('\n')).toEqual(WANT.map((i) => `[config/images] Pulled ${i}`));
  const have = await machineImages(I1.name);
  for (const image of WANT) expect(have).toContain(image);
  // Pulled in full (every blob local), not only resolved.
  const check = await machineExec(I1.name, ['ctr', '-n', 'k8s.io', 'images', 'check', `name==${REPO}/pause:3.2`]);
  expect(check.stdout).toContain('complete');
  // …and the layers came from the registry.
  const log = (await machineExec(I1.name, ['cat', `${DIR}/registry.log`])).stdout;
  for (const name of ['kube-apiserver', 'etcd', 'coredns']) expect(log).toMatch(new RegExp(`GET /v2/k8s/${name}/blobs/sha256:`));
}, 6 * MIN);

test('config images pull: an image the registry lacks names the image and the runtime message', async () => {
  const r = await tsadm(I1.name, ['config', 'images', 'pull', '--image-repository', `${REGISTRY}/nothing`, '--kubernetes-version', 'v1.20.2', '--cri-socket', CRI], { reject: false, timeoutMs: 3 * MIN });
  expect(r.exitCode).not.toBe(0);
  expect(r.all).toContain(`failed to pull image "${REGISTRY}/nothing/kube-apiserver:v1.20.2": rpc error: code = NotFound`);
}, 4 * MIN);

test('preflight: Never pulls nothing; IfNotPresent pulls the one missing image', async () => {
  const missing = `${REPO}/kube-scheduler:v1.20.2`;
  await machineExec(I1.name, ['ctr', '-n', 'k8s.io', 'images', 'rm', missing]);
  expect(await machineImages(I1.name)).not.toContain(missing);

  const never = await tsadm(I1.name, ['init', 'phase', 'preflight', '--config', await preflightConfig('Never')], { reject: false, timeoutMs: 3 * MIN });
  expect(never.all).toContain('Pulling images required for setting up a Kubernetes cluster');
  expect(never.exitCode).toBe(0);
  expect(await machineImages(I1.name)).not.toContain(missing);

  const pull = await tsadm(I1.name, ['init', 'phase', 'preflight', '--config', await preflightConfig('IfNotPresent')], { reject: false, timeoutMs: 3 * MIN });
  expect(pull.all).toContain("You can also perform this action in beforehand using 'tsadm config images pull'");
  expect(pull.exitCode).toBe(0);
  expect(await machineImages(I1.name)).toContain(missing);
}, 8 * MIN);
