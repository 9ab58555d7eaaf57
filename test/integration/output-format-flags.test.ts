/**
 * The output-format flags through the built CLI (bin/tsadm as a separate process): kubectl's
 * template formats (go-template-file=, jsonpath-as-json=) are refused with a usage error naming
 * the value, and the printer flags kubeadm accepts (--show-managed-fields,
 * --allow-missing-template-keys) are accepted with -o yaml.
 */
import { describeBuilt, tsadm } from '../helpers/built-cli.js';
import { tempRoot, type TempRoot } from '../helpers/temp-root.js';

describeBuilt('output formats and printer flags through the built CLI', () => {
  let root: TempRoot;
  beforeAll(() => {
    root = tempRoot({ '/var/lib/kubelet/config.yaml': 'x' });
  });
  afterAll(() => root.cleanup());

  test('check-expiration and token list refuse the template formats naming the value', async () => {
    const c = await tsadm(['certs', 'check-expiration', '--rootfs', root.dir, '-o', 'go-template-file=/tmp/t.tmpl']);
    expect(c.code).not.toBe(0);
    expect(c.stderr).toContain('output format "go-template-file=/tmp/t.tmpl" is not supported by tsadm');
    const t = await tsadm(['token', 'list', '-o', 'jsonpath-as-json={.token}']);
    expect(t.code).not.toBe(0);
    expect(t.stderr).toContain('output format "jsonpath-as-json={.token}" is not supported by tsadm');
    const ok = await tsadm(['certs', 'check-expiration', '--rootfs', root.dir, '-o', 'yaml', '--show-managed-fields', '--allow-missing-template-keys=false']);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('kind: CertificateExpirationInfo');
  });
});
