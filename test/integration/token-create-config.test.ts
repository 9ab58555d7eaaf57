/**
 * `tsadm token create --config` through the built CLI against a real kube-apiserver v1.20.2, with
 * the reference kubeadm v1.20.2 as oracle: the same InitConfiguration bootstrapTokens (ids aside)
 * make the same Secrets, the first token is printed, and token flags mixed with --config are
 * refused with kubeadm's message.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { KUBE_BIN_DIR, startApiServer, type TestApiServer } from '../helpers/apiserver.js';
import { tsadm } from '../helpers/built-cli.js';
import { describeWithOracles, oracles } from '../helpers/oracle.js';

const KUBEADM = path.join(KUBE_BIN_DIR, 'kubeadm');

function configWith(ids: readonly [string, string]): string {
  return [
    'apiVersion: kubeadm.k8s.io/v1beta2',
    'kind: InitConfiguration',
    'bootstrapTokens:',
    `- token: ${ids[0]}.0123456789abcdef`,
    '  description: first token',
    '  ttl: 2h0m0s',
    '  usages: [authentication, signing]',
    '  groups: [system:bootstrappers:kubeadm:default-node-token, system:bootstrappers:extra]',
    `- token: ${ids[1]}.0123456789abcdef`,
    '  ttl: "0"',
    '  usages: [signing, authentication]',
    // The target kubeadm v1.20.2 (the oracle) is: tsadm's default, 1.37, no longer reads v1beta2.
    '---',
    'apiVersion: kubeadm.k8s.io/v1beta2',
    'kind: ClusterConfiguration',
    'kubernetesVersion: v1.20.2',
    '',
  ].join('\n');
}

type Data = Record<string, string>;

describeWithOracles([oracles.built, oracles.kubeadm, oracles.apiServer])('token create --config (built CLI, real apiserver, kubeadm oracle)', () => {
  let server: TestApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 30_000);

  async function secretData(id: string): Promise<Data> {
    const r = await server.request('GET', `/api/v1/namespaces/kube-system/secrets/bootstrap-token-${id}`, { auth: 'admin' });
    expect(r.status).toBe(200);
    const data = (r.body as unknown as { data: Data }).data;
    return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  }

  /** What must match between kubeadm's and tsadm's Secret: all but the id and the exact expiry time. */
  function comparable(d: Data): Data {
    const { 'token-id': _id, expiration, ...rest } = d;
    return { ...rest, expiration: expiration === undefined ? 'none' : 'set' };
  }

  test('every bootstrap token of the file is created as kubeadm creates it, and the first is printed', async () => {
    const kFile = path.join(server.dir, 'kubeadm-tokens.yaml');
    const tFile = path.join(server.dir, 'tsadm-tokens.yaml');
    writeFileSync(kFile, configWith(['kkkkk1', 'kkkkk2']));
    writeFileSync(tFile, configWith(['ttttt1', 'ttttt2']));
    const kOut = execFileSync(KUBEADM, ['token', 'create', '--config', kFile, '--kubeconfig', server.adminKubeconfigPath], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const t = await tsadm(['token', 'create', '--config', tFile, '--kubeconfig', server.adminKubeconfigPath]);
    expect(t.stderr).toBe('');
    expect(t.code).toBe(0);
    expect(kOut.trim()).toBe('kkkkk1.0123456789abcdef');
    expect(t.stdout.trim()).toBe('ttttt1.0123456789abcdef');
    for (const n of [1, 2]) {
      const k = await secretData(`kkkkk${n}`);
      const ts = await secretData(`ttttt${n}`);
      expect(comparable(ts)).toEqual(comparable(k));
    }
    // ttl 2h: the expiry is about two hours from now.
    const exp = Date.parse((await secretData('ttttt1')).expiration!);
    expect(Math.abs(exp - Date.now() - 2 * 3600_000)).toBeLessThan(5 * 60_000);
  }, 60_000);

  test('token flags cannot be mixed with --config: kubeadm\'s message', async () => {
    const file = path.join(server.dir, 'mixed.yaml');
    writeFileSync(file, configWith(['mmmmm1', 'mmmmm2']));
    let kErr = '';
    try {
      execFileSync(KUBEADM, ['token', 'create', '--config', file, '--ttl', '1h', '--description', 'x', '--kubeconfig', server.adminKubeconfigPath], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      kErr = String((err as { stderr: string }).stderr);
    }
    expect(kErr).toContain("can not mix '--config' with arguments [description ttl]");
    const t = await tsadm(['token', 'create', '--config', file, '--ttl', '1h', '--description', 'x', '--kubeconfig', server.adminKubeconfigPath]);
    expect(t.code).not.toBe(0);
    expect(t.stderr).toContain("can not mix '--config' with arguments [description ttl]");
    const r = await server.request('GET', '/api/v1/namespaces/kube-system/secrets/bootstrap-token-mmmmm1', { auth: 'admin' });
    expect(r.status).toBe(404);
  }, 60_000);

  test('a token argument next to --config is not used, and tsadm says so', async () => {
    const file = path.join(server.dir, 'arg.yaml');
    writeFileSync(file, configWith(['aaaaa1', 'aaaaa2']));
    const t = await tsadm(['token', 'create', 'zzzzzz.0123456789abcdef', '--config', file, '--kubeconfig', server.adminKubeconfigPath]);
    expect(t.code).toBe(0);
    expect(t.stdout.trim()).toBe('aaaaa1.0123456789abcdef');
    expect(t.stderr).toContain('the token argument is not used: --config is given');
    expect((await server.request('GET', '/api/v1/namespaces/kube-system/secrets/bootstrap-token-zzzzzz', { auth: 'admin' })).status).toBe(404);
  }, 60_000);
});
