/**
 * Issue 27, finding 1: what a kubeconfig may make tsadm run or read. Real files: a kubeconfig
 * whose auth-provider would run `/bin/sh -c 'id > MARKER'`, a --rootfs tree, a real exec plugin.
 * The oracle that the hostile file is live: client-node's own loader, given the same file, runs
 * the command (the marker appears); through tsadm it must not.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { inlineKubeconfig } from '../../../src/kube/credential-policy.js';
import { resolveKubeconfigConnection } from '../../../src/kube/kubeconfig-connection.js';
import { openKubeApi } from '../../../src/kube/open.js';
import { kubeconfigFilesOn } from '../../../src/kube/seam.js';
import { tsadmErrorOf } from '../../helpers/tsadm-error.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function kubeconfig(cluster: string, user: string): string {
  return `apiVersion: v1\nkind: Config\ncurrent-context: ctx\ncontexts:\n- name: ctx\n  context: {cluster: c1, user: u1}\nclusters:\n- name: c1\n  cluster:\n${cluster}\nusers:\n- name: u1\n  user:\n${user}\n`;
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'credpolicy-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function authProviderKubeconfig(provider: 'gcp' | 'azure', marker: string): string {
  // client-node's gcp provider runs `${cmd-path} ${cmd-args}` through a shell when it has no token yet.
  return kubeconfig('    server: https://127.0.0.1:1', `    auth-provider:\n      name: ${provider}\n      config:\n        cmd-path: /bin/sh\n        cmd-args: "-c 'id > ${marker}'"`);
}

describe('auth-provider users are refused and never run', () => {
  test('the fixture is live: client-node itself runs the gcp provider\'s command', async () => {
    const marker = path.join(dir, 'oracle-marker');
    const kc = new KubeConfig();
    kc.loadFromString(authProviderKubeconfig('gcp', marker));
    await kc.applyToHTTPSOptions({ headers: {} }).catch(() => undefined);
    expect(existsSync(marker)).toBe(true);
    expect(readFileSync(marker, 'utf8')).toMatch(/^uid=/);
  });

  test.each(['gcp', 'azure'] as const)('%s: a real run and a dry run both stop with one clear error, and the marker is not created', async (provider) => {
    const marker = path.join(dir, `marker-${provider}`);
    const root = path.join(dir, 'root');
    mkdirSync(path.join(root, 'etc/kubernetes'), { recursive: true });
    const text = authProviderKubeconfig(provider, marker);
    writeFileSync(path.join(root, 'etc/kubernetes/admin.conf'), text);
    const host = new RootedHost(root);
    const files = kubeconfigFilesOn(host, '/etc/kubernetes/admin.conf');
    const log = { info: () => undefined, debug: () => undefined, event: () => undefined };
    for (const dryRun of [false, true]) {
      const err = await tsadmErrorOf(openKubeApi({ kubeconfigText: text, source: '/etc/kubernetes/admin.conf', files, log, dryRun }));
      expect(err.code).toBe('E_TRUST');
      expect(err.message).toBe(`kubeconfig /etc/kubernetes/admin.conf: user "u1" uses auth-provider "${provider}": auth-provider plugins are not supported (client-go removed them; kubectl and kubeadm ≥ 1.26 refuse them too), and tsadm never runs them`);
    }
    // Also when the credentials come from no file, and on the machine's own root.
    await expect(resolveKubeconfigConnection(text, 'the TLS bootstrap credentials')).rejects.toThrow(/uses auth-provider/);
    await expect(resolveKubeconfigConnection(text, '/x', kubeconfigFilesOn(new RootedHost('/'), '/x'))).rejects.toThrow(/uses auth-provider/);
    expect(existsSync(marker)).toBe(false);
  });

  test('an auth-provider that only names a token file (client-node\'s FileAuth) is refused too, and the file is not read', async () => {
    const text = kubeconfig('    server: https://127.0.0.1:1', `    auth-provider:\n      name: file\n      config: {tokenFile: ${path.join(dir, 'absent')}}`);
    await expect(inlineKubeconfig(text, 'k', undefined)).rejects.toThrow('user "u1" uses auth-provider "file"');
  });
});

describe('exec plugins and files under --rootfs', () => {
  test('an exec plugin runs on the machine\'s own root, and is refused under --rootfs and without a file', async () => {
    const plugin = path.join(dir, 'plugin');
    const marker = path.join(dir, 'exec-marker');
    writeFileSync(plugin, `#!/bin/sh\ntouch ${marker}\necho '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"from-plugin"}}'\n`);
    chmodSync(plugin, 0o755);
    const text = kubeconfig('    server: https://127.0.0.1:1', `    exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: ${plugin}}`);
    const root = path.join(dir, 'root');
    mkdirSync(root);
    await expect(resolveKubeconfigConnection(text, '/etc/kubernetes/admin.conf', kubeconfigFilesOn(new RootedHost(root), '/etc/kubernetes/admin.conf')))
      .rejects.toThrow('kubeconfig /etc/kubernetes/admin.conf: user "u1" has an exec credential plugin: tsadm does not run a program named by a kubeconfig under --rootfs');
    await expect(resolveKubeconfigConnection(text, 'the TLS bootstrap credentials')).rejects.toThrow('has an exec credential plugin: credentials that come from no file must be inline');
    expect(existsSync(marker)).toBe(false);
    const c = await resolveKubeconfigConnection(text, path.join(dir, 'k.conf'), kubeconfigFilesOn(new RootedHost('/'), path.join(dir, 'k.conf')));
    expect(c.headers).toEqual({ Authorization: 'Bearer from-plugin' });
    expect(existsSync(marker)).toBe(true);
  });

  test('files a kubeconfig inside --rootfs names are read inside that root, never from the machine', async () => {
    const root = path.join(dir, 'root');
    // The same absolute paths exist outside the root with other content: the machine's own files.
    const outsideDir = path.join(dir, 'machine');
    mkdirSync(outsideDir);
    writeFileSync(path.join(outsideDir, 'client.crt'), 'MACHINE-CERT');
    for (const [p, content] of [['etc/kubernetes/pki/ca.crt', 'ROOT-CA'], ['var/lib/kubelet/pki/client.crt', 'ROOT-CERT'], ['var/lib/kubelet/pki/client.key', 'ROOT-KEY'], ['etc/kubernetes/token', 'root-token\n']] as const) {
      mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
      writeFileSync(path.join(root, p), content);
    }
    const text = kubeconfig(
      '    server: https://127.0.0.1:1\n    certificate-authority: pki/ca.crt',
      '    client-certificate: /var/lib/kubelet/pki/client.crt\n    client-key: /var/lib/kubelet/pki/client.key\n    tokenFile: token',
    );
    const c = await resolveKubeconfigConnection(text, '/etc/kubernetes/kubelet.conf', kubeconfigFilesOn(new RootedHost(root), '/etc/kubernetes/kubelet.conf'));
    expect([c.ca?.toString(), c.cert?.toString(), c.key?.toString(), c.headers.Authorization]).toEqual(['ROOT-CA', 'ROOT-CERT', 'ROOT-KEY', 'Bearer root-token']);
    // A path that leads out of the root through a symlink is refused by the host seam.
    rmSync(path.join(root, 'var/lib/kubelet/pki/client.crt'));
    const { symlinkSync } = await import('node:fs');
    symlinkSync(path.join(outsideDir, 'client.crt'), path.join(root, 'var/lib/kubelet/pki/client.crt'));
    await expect(resolveKubeconfigConnection(text, '/etc/kubernetes/kubelet.conf', kubeconfigFilesOn(new RootedHost(root), '/etc/kubernetes/kubelet.conf')))
      .rejects.toThrow(/client\.crt/);
  });

  test('credentials that came from no file may name none: each file field is refused by name', async () => {
    const fields: Array<[string, string, string]> = [
      ['    server: https://h:1\n    certificate-authority: /etc/shadow', `    token: t`, 'cluster certificate-authority names a file (/etc/shadow)'],
      ['    server: https://h:1', '    client-certificate: /etc/shadow\n    client-key-data: eA==', 'user client-certificate names a file (/etc/shadow)'],
      ['    server: https://h:1', `    client-certificate-data: ${b64('C')}\n    client-key: /etc/shadow`, 'user client-key names a file (/etc/shadow)'],
      ['    server: https://h:1', '    tokenFile: /etc/shadow', 'user tokenFile names a file (/etc/shadow)'],
      ['    server: https://h:1', '    token-file: /etc/shadow', 'user tokenFile names a file (/etc/shadow)'],
    ];
    for (const [cluster, user, message] of fields) {
      const err = await tsadmErrorOf(inlineKubeconfig(kubeconfig(cluster, user), 'the TLS bootstrap credentials', undefined));
      expect([err.code, err.message]).toEqual(['E_TRUST', `kubeconfig the TLS bootstrap credentials: ${message}; these credentials came from no file, so they must be inline`]);
    }
  });
});
