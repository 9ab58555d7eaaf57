/**
 * `tsadm reset` through the CLI on a --rootfs tree that holds what init/join leave plus files
 * reset must never touch (neighbours in /etc/kubernetes, CNI config, kubeconfigs in $HOME, a
 * symbolic link leading out of the certificate directory, a known directory that is a link):
 * the confirmation rules, dry-run, and exactly the known paths cleaned.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { runCli } from '../helpers/cli.js';
import { listTree } from '../helpers/pki-test-utils.js';

const ETCD_MANIFEST = readFileSync(path.join(process.cwd(), 'test/fixtures/manifests/v1.20.2/default/etcd.yaml'), 'utf8')
  // Point the member at a closed loopback port so the (best-effort) removal fails fast.
  .replace(/192\.168\.10\.11:2379/g, '127.0.0.1:9').replace(/192\.168\.10\.11:2380/g, '127.0.0.1:10');

const KNOWN: Record<string, string> = {
  'etc/kubernetes/admin.conf': 'not a kubeconfig',
  'etc/kubernetes/kubelet.conf': 'x',
  'etc/kubernetes/bootstrap-kubelet.conf': 'x',
  'etc/kubernetes/controller-manager.conf': 'x',
  'etc/kubernetes/scheduler.conf': 'x',
  'etc/kubernetes/manifests/etcd.yaml': ETCD_MANIFEST,
  'etc/kubernetes/manifests/kube-apiserver.yaml': 'x',
  'etc/kubernetes/pki/ca.crt': 'x',
  'etc/kubernetes/pki/ca.key': 'x',
  'etc/kubernetes/pki/etcd/ca.crt': 'x',
  'var/lib/kubelet/config.yaml': 'x',
  'var/lib/kubelet/pki/kubelet-client-current.pem': 'x',
  'var/lib/etcd/member/snap/db': 'x',
  'var/run/kubernetes/x': 'x',
};

const KEEP: Record<string, string> = {
  'etc/kubernetes/keep-me.txt': 'mine',
  'etc/kubernetes/tmp/kubeadm-init-dryrun1/x': 'tmp',
  'etc/cni/net.d/10-bridge.conflist': '{}',
  'root/.kube/config': 'user kubeconfig',
  'var/lib/other/data': 'other',
  'etc/hostname': 'node',
  'outside/precious': 'must survive',
  'outside2/also-precious': 'must survive',
};

let smDir: string;
const savedManager = process.env.TSADM_SERVICE_MANAGER;
beforeAll(() => {
  smDir = mkdtempSync(path.join(tmpdir(), 'tsadm-sm-'));
  writeFileSync(path.join(smDir, 'sm'), '#!/bin/sh\nexit 0\n');
  chmodSync(path.join(smDir, 'sm'), 0o755);
  process.env.TSADM_SERVICE_MANAGER = path.join(smDir, 'sm');
});
afterAll(() => {
  if (savedManager === undefined) delete process.env.TSADM_SERVICE_MANAGER;
  else process.env.TSADM_SERVICE_MANAGER = savedManager;
  rmSync(smDir, { recursive: true, force: true });
});

function makeTree(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'tsadm-reset-'));
  for (const [p, content] of Object.entries({ ...KNOWN, ...KEEP })) {
    mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    writeFileSync(path.join(root, p), content);
  }
  // A link inside the certificate directory that leads out of it: the link goes, its target stays.
  symlinkSync('../../../outside', path.join(root, 'etc/kubernetes/pki/escape'));
  // A known directory that is itself a link: not followed, not emptied.
  symlinkSync('../../outside2', path.join(root, 'var/lib/cni'));
  return root;
}

async function reset(args: string[], stdin: NodeJS.ReadableStream): Promise<{ code: number; out: string; err: string }> {
  const { code, stdout: out, stderr: err } = await runCli(['reset', ...args], {}, stdin);
  return { code, out, err };
}

const closedStdin = (): NodeJS.ReadableStream => Readable.from([]);
const answer = (text: string): NodeJS.ReadableStream => Readable.from([text]);

describe('tsadm reset --rootfs', () => {
  const roots: string[] = [];
  afterAll(() => {
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });
  const tree = (): string => {
    const r = makeTree();
    roots.push(r);
    return r;
  };

  test('without --force and without input: a clear error, nothing touched', async () => {
    const root = tree();
    const before = listTree(root);
    const r = await reset(['--rootfs', root], closedStdin());
    expect(r.code).toBe(3);
    expect(r.err).toContain('error: error execution phase preflight: reset needs a confirmation but there is no input to read it from');
    expect(r.err).toContain('tsadm reset --force');
    expect(r.out).toContain('[reset] Are you sure you want to proceed? [y/N]');
    expect(listTree(root)).toEqual(before);
  });

  test('answering anything but y aborts; nothing touched', async () => {
    const root = tree();
    const before = listTree(root);
    const r = await reset(['--rootfs', root], answer('n\n'));
    expect(r.code).toBe(1);
    expect(r.err).toContain('aborted reset operation');
    expect(listTree(root)).toEqual(before);
  });

  test('--dry-run lists what it would remove and changes nothing', async () => {
    const root = tree();
    const before = listTree(root);
    const r = await reset(['--rootfs', root, '--force', '--dry-run'], closedStdin());
    expect(r.code).toBe(0);
    expect(listTree(root)).toEqual(before);
    expect(r.out).toContain('[dryrun] Would run: remove /etc/kubernetes/admin.conf');
    expect(r.out).toContain('[dryrun] Would run: remove /var/lib/etcd/member');
    expect(r.out).toContain('[dryrun] Would run: stop kubelet');
  });

  test('"y" on stdin: exactly the known paths are cleaned; everything else survives', async () => {
    const root = tree();
    const r = await reset(['--rootfs', root, '--ignore-preflight-errors', 'IsPrivilegedUser'], answer('y\n'));
    expect(r.err).not.toContain('error:');
    expect(r.code).toBe(0);
    for (const p of Object.keys(KNOWN)) expect(existsSync(path.join(root, p))).toBe(false);
    // Emptied directories stay (kubeadm's CleanDir), known files are gone.
    for (const d of ['etc/kubernetes/manifests', 'etc/kubernetes/pki', 'var/lib/kubelet', 'var/lib/etcd', 'var/run/kubernetes']) {
      expect(readdirSync(path.join(root, d))).toEqual([]);
    }
    for (const [p, content] of Object.entries(KEEP)) expect(readFileSync(path.join(root, p), 'utf8')).toBe(content);
    expect(existsSync(path.join(root, 'etc/kubernetes/pki/escape'))).toBe(false);
    expect(lstatSync(path.join(root, 'var/lib/cni')).isSymbolicLink()).toBe(true);
    expect(readdirSync(path.join(root, 'etc/kubernetes')).sort()).toEqual(['keep-me.txt', 'manifests', 'pki', 'tmp']);
    // Best-effort steps warn and go on; the not-cleaned notes end the run.
    expect(r.err).toContain('not cleaning /var/lib/cni: it is a symbolic link');
    expect(r.err).toContain('failed to remove etcd member');
    expect(r.out).toContain('[reset] Deleting contents of stateful directories: [/var/lib/etcd /var/lib/kubelet /var/lib/dockershim /var/run/kubernetes /var/lib/cni]');
    expect(r.out).toContain('The reset process does not clean CNI configuration. To do so, you must remove /etc/cni/net.d');
    expect(r.out).toContain('Please, check the contents of the $HOME/.kube/config file.');
    expect(r.out).toContain('The reset process does not undo host preparation (tsadm prepare, --prepare-host)');
  }, 60_000);

  test('--cert-dir elsewhere and --cleanup-tmp-dir; a system directory as --cert-dir is refused', async () => {
    const root = tree();
    mkdirSync(path.join(root, 'srv/pki'), { recursive: true });
    writeFileSync(path.join(root, 'srv/pki/ca.crt'), 'x');
    const r = await reset(['--rootfs', root, '--force', '--cert-dir', '/srv/pki', '--cleanup-tmp-dir', '--skip-phases', 'remove-etcd-member,update-cluster-status'], closedStdin());
    expect(r.code).toBe(0);
    expect(readdirSync(path.join(root, 'srv/pki'))).toEqual([]);
    expect(readdirSync(path.join(root, 'etc/kubernetes/tmp'))).toEqual([]);
    // Not the certificate directory this time: left alone.
    expect(readFileSync(path.join(root, 'etc/kubernetes/pki/ca.crt'), 'utf8')).toBe('x');
    expect(r.err).toContain('WARNING: Cleaning a non-default certificates directory: "/srv/pki"');

    const r2 = await reset(['--rootfs', root, '--force', '--cert-dir', '/etc', '--skip-phases', 'remove-etcd-member,update-cluster-status'], closedStdin());
    expect(r2.code).toBe(0);
    expect(r2.err).toContain('not cleaning /etc: it is a system directory');
    expect(readFileSync(path.join(root, 'etc/hostname'), 'utf8')).toBe('node');
  }, 60_000);
});
