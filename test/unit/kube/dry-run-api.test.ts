import { MemoryReporter } from '../../helpers/phase-ctx.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import { DryRunKubeApi } from '../../../src/kube/dry-run-api.js';
import { RestKubeApi } from '../../../src/kube/rest-api.js';
import { NO_RETRY } from '../../../src/kube/retry.js';
import { ScriptedTransport } from './fake-transport.js';

function setup(inner?: RestKubeApi) {
  const reporter = new MemoryReporter();
  const log = new PhaseLogger(reporter);
  log.phase = 'upload-config/kubeadm';
  return { reporter, api: new DryRunKubeApi(inner, log) };
}

const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kubeadm-config', namespace: 'kube-system' }, data: { a: 'b' } };

describe('DryRunKubeApi', () => {
  test('a write is logged as kubeadm logs it, reported as would-create, and never sent', async () => {
    const { reporter, api } = setup();
    const res = await api.ensure(cm);
    expect(res.action).toBe('created');
    const info = reporter.events.filter((e) => e.type === 'log' && e.verbosity === 0).map((e) => e.type === 'log' && `[${e.prefix}] ${e.message}`);
    expect(info[0]).toBe('[dryrun] Would perform action CREATE on resource "configmaps" in API group "core/v1"');
    expect(info[1]).toBe('[dryrun] Attached object:\n\tapiVersion: v1\n\tdata:\n\t  a: b\n\tkind: ConfigMap\n\tmetadata:\n\t  name: kubeadm-config\n\t  namespace: kube-system');
    expect(reporter.events.filter((e) => e.type === 'object')).toEqual([
      expect.objectContaining({ type: 'object', action: 'would-create', kind: 'ConfigMap', namespace: 'kube-system', name: 'kubeadm-config', phase: 'upload-config/kubeadm' }),
    ]);
  });

  test('later reads in the same run see planned writes (a second ensure is unchanged)', async () => {
    const { reporter, api } = setup();
    await api.ensure(cm);
    expect((await api.ensure(cm)).action).toBe('unchanged');
    expect((await api.ensure({ ...cm, data: { a: 'c' } })).action).toBe('updated');
    expect(reporter.events.flatMap((e) => (e.type === 'object' ? [e.action] : []))).toEqual(['would-create', 'unchanged', 'would-update']);
  });

  test('Secret values never reach the log', async () => {
    const { reporter, api } = setup();
    await api.ensure({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' }, data: { 'token-secret': Buffer.from('0123456789abcdef').toString('base64') } });
    const text = reporter.lines().join('\n');
    expect(text).toContain('token-secret: <redacted>');
    expect(text).not.toContain(Buffer.from('0123456789abcdef').toString('base64'));
  });

  test('a Node patch is shown as kubeadm shows it, even when the Node does not exist', async () => {
    const { reporter, api } = setup();
    const res = await api.patchNode('cp1', (n) => {
      n.metadata.annotations['kubeadm.alpha.kubernetes.io/cri-socket'] = '/run/containerd/containerd.sock';
    }, { timeoutMs: 1 });
    expect(res).toBe('patched');
    expect(reporter.lines()).toContain('Attached patch:\n\t{"metadata":{"annotations":{"kubeadm.alpha.kubernetes.io/cri-socket":"/run/containerd/containerd.sock"}}}');
  });

  test('an unreachable API server means an empty cluster, not an error', async () => {
    const inner = new RestKubeApi(new ScriptedTransport(() => ({ netError: 'ECONNREFUSED' })), { retry: NO_RETRY });
    const { reporter, api } = setup(inner);
    await expect(api.get('ConfigMap', 'x', 'kube-system')).resolves.toBeUndefined();
    await expect(api.list('Secret', 'kube-system')).resolves.toEqual([]);
    expect(reporter.lines().some((l) => l.includes('is not reachable; dry-run assumes an empty cluster'))).toBe(true);
    await expect(api.healthz()).resolves.toBe(true);
  });

  test('create of an object that exists fails like the real API (409 AlreadyExists)', async () => {
    const { api } = setup();
    await api.create(cm);
    await expect(api.create(cm)).rejects.toMatchObject({ status: 409, reason: 'AlreadyExists' });
  });
});
