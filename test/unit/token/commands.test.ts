import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describeWithApiServer, KUBE_BIN_DIR, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { MemoryReporter } from '../../helpers/phase-ctx.js';
import { testWithOracles, oracles } from '../../helpers/oracle.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import { DryRunKubeApi } from '../../../src/kube/dry-run-api.js';
import { createApiSeam } from '../../../src/kube/seam.js';
import type { ConfigMapObject, KubeApi, SecretObject } from '../../../src/kube/types.js';
import { clusterInfoConfigMap, clusterInfoKubeconfig } from '../../../src/phases/cluster/bootstrap-token-render.js';
import { tokenCreate, tokenDelete, tokenList } from '../../../src/token/commands.js';
import { computeDetachedSignature } from '../../../src/token/jws.js';
import { formatTokenObjects } from '../../../src/token/list-format.js';
import { secretToToken, tokenToSecret } from '../../../src/token/secret.js';

const KUBEADM = path.join(KUBE_BIN_DIR, 'kubeadm');

/**
 * Token commands against a real kube-apiserver v1.20.2 with the controller-manager's
 * bootstrapsigner running; the real kubeadm v1.20.2 binary is the oracle for `token list`.
 */
describeWithApiServer('token commands on a real cluster', () => {
  let server: TestApiServer;
  let api: KubeApi;
  const out: string[] = [];
  const log = { output: (t: string) => void out.push(t) };
  const defaults = { ttl: '24h0m0s', usages: ['signing', 'authentication'], groups: ['system:bootstrappers:kubeadm:default-node-token'], description: '', printJoinCommand: false };

  beforeAll(async () => {
    server = await startApiServer({ controllers: ['bootstrapsigner'] });
    api = await createApiSeam({ readFile: () => Promise.resolve(Buffer.from(server.adminKubeconfig)) }, false).open({ path: '/etc/kubernetes/admin.conf' }, { log: new PhaseLogger(new MemoryReporter()) });
    // cluster-info as the bootstrap-token phase writes it, for the bootstrapsigner to sign.
    await api.ensure(clusterInfoConfigMap(clusterInfoKubeconfig(server.url, server.caPem)));
  }, 120_000);
  afterAll(async () => {
    api?.close();
    await server?.stop();
  }, 30_000);

  const kubeadm = (...args: string[]): string => execFileSync(KUBEADM, [...args, '--kubeconfig', server.adminKubeconfigPath], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const oracle = testWithOracles([oracles.kubeadm]);

  test('create prints the token and writes a Secret the API server and kubeadm understand', async () => {
    const printed = await tokenCreate({ ...defaults, token: 'aaaaaa.0123456789abcdef', description: 'made by tsadm' }, api, log);
    expect(printed).toBe('aaaaaa.0123456789abcdef');
    expect(out.at(-1)).toBe('aaaaaa.0123456789abcdef');
    const s = await api.get<SecretObject>('Secret', 'bootstrap-token-aaaaaa', 'kube-system');
    expect(secretToToken(s!)).toMatchObject({ description: 'made by tsadm', usages: ['authentication', 'signing'] });
    // The API server authenticates it as a bootstrap token.
    const who = await server.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      auth: { token: 'aaaaaa.0123456789abcdef' },
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'nodes' } } },
    });
    expect(who.status).toBe(201);
  });

  test('a token id that exists is refused, as kubeadm does', async () => {
    await expect(tokenCreate({ ...defaults, token: 'aaaaaa.ffffffffffffffff' }, api, log)).rejects.toMatchObject({ code: 'E_CONFLICT', message: 'a token with id "aaaaaa" already exists' });
  });

  test.each([
    [{ token: 'AAAAAA.0123456789abcdef' }, 'E_CONFIG_INVALID', /does not match/],
    [{ ttl: '1 day' }, 'E_CONFIG_INVALID', /invalid --ttl "1 day"/],
    [{ usages: ['signing', 'nope'] }, 'E_CONFIG_INVALID', /invalid bootstrap token usage string: nope/],
    [{ groups: ['system:nodes'] }, 'E_CONFIG_INVALID', /bootstrap group "system:nodes" is invalid/],
    [{ certificateKey: 'ab'.repeat(32) }, 'E_USAGE', /cannot use --certificate-key without --print-join-command/],
  ])('bad input %j fails before any API call', async (over, code, message) => {
    const before = (await api.list('Secret', 'kube-system')).length;
    const err = (await tokenCreate({ ...defaults, ...over }, api, log).catch((e: unknown) => e)) as Error & { code: string };
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
    expect((await api.list('Secret', 'kube-system')).length).toBe(before);
  });

  test('--print-join-command: one line, endpoint and CA pin from the kubeconfig (pin checked with openssl)', async () => {
    const pin = execFileSync('sh', ['-c', 'openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | sha256sum'], { input: server.caPem, encoding: 'utf8' }).split(' ')[0];
    const printed = await tokenCreate({ ...defaults, printJoinCommand: true, kubeconfig: server.adminKubeconfig }, api, log);
    const endpoint = server.url.replace('https://', '');
    expect(printed).toMatch(new RegExp(`^tsadm join ${endpoint} --token [a-z0-9]{6}\\.[a-z0-9]{16}     --discovery-token-ca-cert-hash sha256:${pin} $`));
    const cp = await tokenCreate({ ...defaults, printJoinCommand: true, kubeconfig: server.adminKubeconfig, certificateKey: 'ab'.repeat(32) }, api, log);
    expect(cp.endsWith(`--discovery-token-ca-cert-hash sha256:${pin}     --control-plane --certificate-key ${'ab'.repeat(32)}`)).toBe(true);
  });

  oracle('the join command has kubeadm\'s exact shape (kubeadm token create --print-join-command)', async () => {
    const theirs = kubeadm('token', 'create', 'ccccca.0123456789abcdef', '--print-join-command').replace(/\n$/, '');
    const ours = `tsadm join ${server.url.replace('https://', '')} --token ccccca.0123456789abcdef     --discovery-token-ca-cert-hash ${theirs.split('--discovery-token-ca-cert-hash ')[1]}`;
    expect(theirs.replace(/^kubeadm/, 'tsadm')).toBe(ours);
    const key = 'ab'.repeat(32);
    const theirsCp = kubeadm('token', 'create', 'cccccb.0123456789abcdef', '--print-join-command', '--certificate-key', key).replace(/\n$/, '');
    const oursCp = await tokenCreate({ ...defaults, token: 'cccccc.0123456789abcdef', printJoinCommand: true, kubeconfig: server.adminKubeconfig, certificateKey: key }, api, log);
    expect(theirsCp.replace(/^kubeadm/, 'tsadm').replace('cccccb', 'cccccc')).toBe(oursCp);
  });

  test('the controller-manager\'s bootstrapsigner signs cluster-info with our token, verifiably', async () => {
    await tokenCreate({ ...defaults, token: 'sssss1.0123456789abcdef' }, api, log);
    const cm = await waitFor(async () => {
      const c = await api.get<ConfigMapObject>('ConfigMap', 'cluster-info', 'kube-public');
      return c?.data?.['jws-kubeconfig-sssss1'] ? c : undefined;
    });
    expect(cm.data?.['jws-kubeconfig-sssss1']).toBe(await computeDetachedSignature(cm.data?.kubeconfig as string, 'sssss1', '0123456789abcdef'));
    await tokenDelete(['sssss1'], api);
    await waitFor(async () => {
      const c = await api.get<ConfigMapObject>('ConfigMap', 'cluster-info', 'kube-public');
      return c?.data?.['jws-kubeconfig-sssss1'] === undefined ? true : undefined;
    });
  }, 60_000);

  oracle('list: text, json and yaml are byte-identical to kubeadm token list', async () => {
    // Stable TTL columns: 10 days and a half hour ("10d"), expired ("<invalid>"), and never.
    const now = new Date();
    await api.ensure(tokenToSecret({ token: 'xxxxx1.0123456789abcdef', description: '', ttlMs: 10 * 86_400_000 + 1_800_000, usages: ['signing'], groups: [] }, now));
    await api.ensure(tokenToSecret({ token: 'xxxxx2.0123456789abcdef', description: 'expired', ttlMs: 0, expires: new Date(now.getTime() - 7_200_000).toISOString().replace(/\.\d+Z$/, 'Z'), usages: ['authentication'], groups: ['system:bootstrappers:extra'] }, now));
    await api.ensure(tokenToSecret({ token: 'xxxxx3.0123456789abcdef', description: 'forever', ttlMs: 0, usages: ['signing', 'authentication'], groups: ['system:bootstrappers:a', 'system:bootstrappers:b'] }, now));
    const clean = async (): Promise<void> => {
      for (const s of await api.list<SecretObject>('Secret', 'kube-system', { fieldSelector: 'type=bootstrap.kubernetes.io/token' })) {
        if (!s.metadata.name.startsWith('bootstrap-token-xxxxx')) await api.delete('Secret', s.metadata.name, 'kube-system');
      }
    };
    await clean(); // only the three tokens above, so every TTL column is deterministic
    const text = (await tokenList(api, 'text')).output;
    expect(text).toContain('<invalid>');
    expect(text).toContain('<forever>');
    expect(text).toBe(kubeadm('token', 'list'));
    const tokens = (await api.list<SecretObject>('Secret', 'kube-system', { fieldSelector: 'type=bootstrap.kubernetes.io/token' })).map(secretToToken);
    expect(formatTokenObjects(tokens, 'json', 'output.kubeadm.k8s.io/v1alpha1')).toBe(kubeadm('token', 'list', '-o', 'json'));
    expect(formatTokenObjects(tokens, 'yaml', 'output.kubeadm.k8s.io/v1alpha1')).toBe(kubeadm('token', 'list', '-o', 'yaml'));
    expect((await tokenList(api, 'json')).output).toContain('"apiVersion": "output.kubeadm.k8s.io/v1alpha3"');
  });

  oracle('tokens kubeadm created are listed and deleted by tsadm', async () => {
    kubeadm('token', 'create', 'kkkkkk.0123456789abcdef', '--description', 'from kubeadm', '--ttl', '2h');
    const { output } = await tokenList(api, 'text');
    expect(output).toMatch(/kkkkkk\.0123456789abcdef\s+1h\s+\S+\s+authentication,signing\s+from kubeadm/);
    expect(await tokenDelete(['kkkkkk.0123456789abcdef'], api)).toEqual(['bootstrap token "kkkkkk" deleted']);
  });

  test('an unparseable token Secret is reported, the rest still listed', async () => {
    await api.ensure({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-broken', namespace: 'kube-system' }, type: 'bootstrap.kubernetes.io/token', data: { 'token-id': Buffer.from('zzzzzz').toString('base64') } });
    const res = await tokenList(api, 'text');
    expect(res.warnings).toEqual(['bootstrap token name is not of the form \'bootstrap-token-(token-id)\'. Actual: "bootstrap-token-broken". Expected: "bootstrap-token-zzzzzz"']);
    await api.delete('Secret', 'bootstrap-token-broken', 'kube-system');
  });

  test('delete: by id or whole token; a missing token is a clear error; bad arguments fail first', async () => {
    await tokenCreate({ ...defaults, token: 'dddddd.0123456789abcdef' }, api, log);
    await tokenCreate({ ...defaults, token: 'eeeeee.0123456789abcdef' }, api, log);
    const lines: string[] = [];
    expect(await tokenDelete(['dddddd', 'eeeeee.0123456789abcdef'], api, (l) => lines.push(l))).toEqual(['bootstrap token "dddddd" deleted', 'bootstrap token "eeeeee" deleted']);
    expect(lines).toHaveLength(2);
    await expect(tokenDelete(['dddddd'], api)).rejects.toMatchObject({
      code: 'E_API',
      message: 'failed to delete bootstrap token "dddddd": secrets "bootstrap-token-dddddd" not found',
    });
    await tokenCreate({ ...defaults, token: 'ffffff.0123456789abcdef' }, api, log);
    await expect(tokenDelete(['ffffff', 'not-a-token'], api)).rejects.toMatchObject({ code: 'E_USAGE' });
    expect(await api.get('Secret', 'bootstrap-token-ffffff', 'kube-system')).toBeDefined();
    await expect(tokenDelete([], api)).rejects.toMatchObject({ code: 'E_USAGE' });
  });

  test('dry-run create sends nothing', async () => {
    const reporter = new MemoryReporter();
    const reader = await createApiSeam({ readFile: () => Promise.resolve(Buffer.from(server.adminKubeconfig)) }, true).open({ path: '/x' }, { log: new PhaseLogger(reporter) });
    expect(reader).toBeInstanceOf(DryRunKubeApi);
    await tokenCreate({ ...defaults, token: 'gggggg.0123456789abcdef' }, reader, log);
    expect(await api.get('Secret', 'bootstrap-token-gggggg', 'kube-system')).toBeUndefined();
    expect(reporter.lines()).toContain('Would perform action CREATE on resource "secrets" in API group "core/v1"');
    reader.close();
  });
});

async function waitFor<T>(fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() - start > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 250));
  }
}
