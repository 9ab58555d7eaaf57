/**
 * kubeadm's printer flags on `token list`, `certs check-expiration`, `config images list` and
 * `upgrade plan` (kubeadm's generated reference pages list them on all four): the template formats
 * kubeadm v1.20.2 lists in its help (text|json|yaml|go-template|go-template-file|template|
 * templatefile|jsonpath|jsonpath-as-json|jsonpath-file) are refused by name, json/yaml/text work,
 * and --allow-missing-template-keys / --show-managed-fields are accepted.
 */
import { refuseTemplateFormat, TEMPLATE_FORMATS } from '../../../src/commands/output-flags.js';
import { runCli } from '../../helpers/cli.js';
import { tempRoot } from '../../helpers/temp-root.js';

describe('refuseTemplateFormat', () => {
  test.each([...TEMPLATE_FORMATS])('%s is refused, with or without its template', (name) => {
    expect(() => refuseTemplateFormat(name)).toThrow(`output format "${name}" is not supported by tsadm`);
    expect(() => refuseTemplateFormat(`${name}={.items}`)).toThrow(`output format "${name}={.items}" is not supported by tsadm: it prints text, json, yaml and kyaml, not kubeadm's ${name} printer`);
  });

  test('text, json and yaml pass', () => {
    for (const f of ['text', 'json', 'yaml', 'table']) expect(() => refuseTemplateFormat(f)).not.toThrow();
  });
});

describe('the commands', () => {
  test('check-expiration -o jsonpath=… is refused naming the value; json works with the template flags given', async () => {
    const root = tempRoot();
    try {
      const bad = await runCli(['certs', 'check-expiration', '--rootfs', root.dir, '-o', 'jsonpath={.certificates[*].name}']);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('output format "jsonpath={.certificates[*].name}" is not supported by tsadm');
      const ok = await runCli(['certs', 'check-expiration', '--rootfs', root.dir, '-o', 'json', '--allow-missing-template-keys=false', '--show-managed-fields']);
      expect(ok.stderr).toBe('');
      expect(ok.code).toBe(0);
      expect(JSON.parse(ok.stdout)).toMatchObject({ kind: 'CertificateExpirationInfo' });
      const unknown = await runCli(['certs', 'check-expiration', '--rootfs', root.dir, '-o', 'wide']);
      expect(unknown.stderr).toContain('unable to match a printer suitable for the output format "wide"');
    } finally {
      root.cleanup();
    }
  });

  test('token list -o go-template=… is refused before any API call; --experimental-output (kubeadm 1.20) is the same flag', async () => {
    const r = await runCli(['token', 'list', '-o', 'go-template={{.token}}', '--kubeconfig', '/nonexistent/admin.conf']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('output format "go-template={{.token}}" is not supported by tsadm');
    const r2 = await runCli(['token', 'list', '--experimental-output', 'jsonpath-file=/tmp/x', '--kubeconfig', '/nonexistent/admin.conf']);
    expect(r2.stderr).toContain('output format "jsonpath-file=/tmp/x" is not supported by tsadm');
  });

  test('config images list and upgrade plan take the printer flags and refuse the template formats by name (kubeadm\'s PrintFlags on both)', async () => {
    const images = await runCli(['config', 'images', 'list', '--kubernetes-version', 'v1.37.0', '-o', 'jsonpath={.images[*]}', '--allow-missing-template-keys=false']);
    expect(images.code).not.toBe(0);
    expect(images.stderr).toContain('output format "jsonpath={.images[*]}" is not supported by tsadm');
    const plan = await runCli(['upgrade', 'plan', '-o', 'go-template={{.}}', '--show-managed-fields', '--kubeconfig', '/nonexistent/admin.conf']);
    expect(plan.code).not.toBe(0);
    expect(plan.stderr).toContain('output format "go-template={{.}}" is not supported by tsadm');
    const wide = await runCli(['upgrade', 'plan', '-o', 'wide', '--kubeconfig', '/nonexistent/admin.conf']);
    expect(wide.stderr).toContain('unable to match a printer suitable for the output format "wide", allowed formats are: text,json,yaml,kyaml');
  });

  test('config images list -o kyaml prints the Images object in KYAML (kind, apiVersion, images: the JSON order)', async () => {
    const r = await runCli(['config', 'images', 'list', '--kubernetes-version', 'v1.20.2', '-o', 'kyaml', '--show-managed-fields']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`---
{
  kind: "Images",
  apiVersion: "output.kubeadm.k8s.io/v1alpha1",
  images: [
    "k8s.gcr.io/kube-apiserver:v1.20.2",
    "k8s.gcr.io/kube-controller-manager:v1.20.2",
    "k8s.gcr.io/kube-scheduler:v1.20.2",
    "k8s.gcr.io/kube-proxy:v1.20.2",
    "k8s.gcr.io/pause:3.2",
    "k8s.gcr.io/etcd:3.4.13-0",
    "k8s.gcr.io/coredns:1.7.0",
  ],
}
`);
  });

  test('every config subcommand accepts --kubeconfig, as kubeadm\'s persistent flag', async () => {
    const r = await runCli(['config', 'images', 'list', '--kubernetes-version', 'v1.20.2', '--kubeconfig', '/etc/kubernetes/admin.conf']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const p = await runCli(['config', 'print', 'init-defaults', '--kubeconfig', '/nonexistent/admin.conf']);
    expect(p.code).toBe(0);
  });
});
