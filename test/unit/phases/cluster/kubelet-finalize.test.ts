import { fixtureInitConfig } from '../../../helpers/config-fixture.js';
import { initCtxFor } from '../../../helpers/phase-ctx.js';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';
import { readFileSync } from 'node:fs';
import { RootedHost } from '../../../../src/host/rooted-host.js';
import type { ServiceAction, ServiceResult } from '../../../../src/host/host.js';
import { pointAtRotatingCert } from '../../../../src/phases/cluster/kubelet-finalize.js';
import { runPhases } from '../../../../src/engine/runner.js';
import type { Phase } from '../../../../src/engine/phase.js';
import type { InitCtx } from '../../../../src/run/context.js';
import { initPhases } from '../../../../src/workflows/init.js';
import { kubeletFinalizePhaseFor } from '../../../../src/phases/cluster/kubelet-finalize.js';
import { VERSION_TABLE } from '../../../../src/versions/table.js';

/** A host whose service manager is recorded instead of run. */
class RecordingHost extends RootedHost {
  readonly services: string[] = [];
  constructor(root: string, private readonly ok = true) {
    super(root);
  }
  override service(action: ServiceAction, unit: string): Promise<ServiceResult> {
    this.services.push(`${action} ${unit}`);
    return Promise.resolve(this.ok ? { ok: true, via: 'test' } : { ok: false, via: 'test', message: 'unit kubelet.service not found' });
  }
}

const KUBELET_CONF = 'apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: Q0E=\n    server: https://10.0.0.1:6443\n  name: kubernetes\ncontexts:\n- context:\n    cluster: kubernetes\n    user: system:node:cp1\n  name: system:node:cp1@kubernetes\ncurrent-context: system:node:cp1@kubernetes\nkind: Config\npreferences: {}\nusers:\n- name: system:node:cp1\n  user:\n    client-certificate-data: Q0VSVA==\n    client-key-data: S0VZ\n';
const PEM = '/var/lib/kubelet/pki/kubelet-client-current.pem';

/** The kubelet-finalize phase exactly as `tsadm init` builds it for the context's target version. */
function finalizeFor(ctx: InitCtx): Phase<InitCtx> {
  const phase = initPhases(ctx.versions).find((p) => p.name === 'kubelet-finalize');
  if (!phase) throw new Error('the init tree has no kubelet-finalize phase');
  return phase;
}

describe('kubelet-finalize', () => {
  let root: TempRoot;
  afterEach(() => root?.cleanup());

  test('child named per minor (1.20: experimental-cert-rotation, 1.31+: enable-client-cert-rotation), the other name an alias', () => {
    expect(kubeletFinalizePhaseFor(VERSION_TABLE['1.20']).children?.map((c) => [c.name, ...(c.aliases ?? [])])).toEqual([['experimental-cert-rotation', 'enable-client-cert-rotation']]);
    expect(kubeletFinalizePhaseFor(VERSION_TABLE['1.31']).children?.map((c) => [c.name, ...(c.aliases ?? [])])).toEqual([['enable-client-cert-rotation', 'experimental-cert-rotation']]);
    expect(kubeletFinalizePhaseFor(VERSION_TABLE['1.34']).children?.[0]?.name).toBe('enable-client-cert-rotation');
  });

  function ctxWith(host: RootedHost, dryRun = false): { ctx: InitCtx; lines: () => string[] } {
    const { ctx, reporter } = initCtxFor(fixtureInitConfig(), root.dir, { dryRun });
    return { ctx: dryRun ? ctx : { ...ctx, host }, lines: () => reporter.events.flatMap((e) => (e.type === 'log' && e.verbosity === 0 ? [`${e.level}: ${e.message}`] : [])) };
  }

  test('with a rotating client certificate: kubelet.conf rewritten (0600), kubelet restarted; a re-run does nothing', async () => {
    root = tempRoot({ '/etc/kubernetes/kubelet.conf': { content: KUBELET_CONF, mode: 0o600 }, [PEM]: 'pem' });
    const host = new RecordingHost(root.dir);
    const { ctx, lines } = ctxWith(host);
    await runPhases([finalizeFor(ctx)], ctx, { filter: [], skip: [] });
    expect(lines()).toEqual(['info: Updating "/etc/kubernetes/kubelet.conf" to point to a rotatable kubelet client certificate and key']);
    expect(readFileSync(root.at('/etc/kubernetes/kubelet.conf'), 'utf8')).toContain(`    client-certificate: ${PEM}\n    client-key: ${PEM}\n`);
    expect(host.services).toEqual(['restart kubelet']);
    const again = ctxWith(host);
    await runPhases([finalizeFor(again.ctx)], again.ctx, { filter: [], skip: [] });
    expect(host.services).toEqual(['restart kubelet']);
    expect(again.lines()).toEqual([]);
  });

  test('no rotating certificate yet: nothing to do', async () => {
    root = tempRoot({ '/etc/kubernetes/kubelet.conf': KUBELET_CONF });
    const host = new RecordingHost(root.dir);
    const { ctx } = ctxWith(host);
    await runPhases([finalizeFor(ctx)], ctx, { filter: [], skip: [] });
    expect(readFileSync(root.at('/etc/kubernetes/kubelet.conf'), 'utf8')).toBe(KUBELET_CONF);
    expect(host.services).toEqual([]);
  });

  test('a failed restart is a warning, as in kubeadm', async () => {
    root = tempRoot({ '/etc/kubernetes/kubelet.conf': KUBELET_CONF, [PEM]: 'pem' });
    const { ctx, lines } = ctxWith(new RecordingHost(root.dir, false));
    await runPhases([finalizeFor(ctx)], ctx, { filter: [], skip: [] });
    expect(lines()).toContain('warn: unable to restart the kubelet service momentarily: unit kubelet.service not found');
  });

  test('dry-run: the write and the restart are only recorded', async () => {
    root = tempRoot({ '/etc/kubernetes/kubelet.conf': KUBELET_CONF, [PEM]: 'pem' });
    const { ctx } = ctxWith(new RecordingHost(root.dir), true);
    await runPhases([finalizeFor(ctx)], ctx, { filter: [], skip: [] });
    expect(readFileSync(root.at('/etc/kubernetes/kubelet.conf'), 'utf8')).toBe(KUBELET_CONF);
    expect(ctx.host.writes.map((w) => w.path)).toEqual(['/etc/kubernetes/kubelet.conf']);
    expect(ctx.host.actions).toEqual(['restart kubelet']);
  });

  test('the kubelet --cert-dir extra arg moves the PEM', async () => {
    root = tempRoot({ '/etc/kubernetes/kubelet.conf': KUBELET_CONF, '/srv/kpki/kubelet-client-current.pem': 'pem' });
    const host = new RecordingHost(root.dir);
    const cfg = fixtureInitConfig();
    const { ctx } = initCtxFor({ ...cfg, init: { ...cfg.init, nodeRegistration: { ...cfg.init.nodeRegistration, kubeletExtraArgs: [{ name: 'cert-dir', value: '/srv/kpki' }] } } }, root.dir);
    await runPhases([finalizeFor(ctx)], { ...ctx, host }, { filter: [], skip: [] });
    expect(readFileSync(root.at('/etc/kubernetes/kubelet.conf'), 'utf8')).toContain('client-key: /srv/kpki/kubelet-client-current.pem');
  });
});

describe('kubelet-finalize rewrite', () => {
  const conf = [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    '    certificate-authority-data: Q0E=',
    '    server: https://10.0.0.1:6443',
    '  name: kubernetes',
    'contexts:',
    '- context:',
    '    cluster: kubernetes',
    '    user: system:node:cp1',
    '  name: system:node:cp1@kubernetes',
    'current-context: system:node:cp1@kubernetes',
    'kind: Config',
    'preferences: {}',
    'users:',
    '- name: system:node:cp1',
    '  user:',
    '    client-certificate-data: Q0VSVA==',
    '    client-key-data: S0VZ',
    '',
  ].join('\n');
  const pem = '/var/lib/kubelet/pki/kubelet-client-current.pem';

  test('the node user points at the rotating PEM; embedded data is dropped; nothing else changes', () => {
    const r = pointAtRotatingCert(conf, 'cp1', pem, '/etc/kubernetes/kubelet.conf');
    expect(r.changed).toBe(true);
    expect(r.text).toBe(conf.replace('    client-certificate-data: Q0VSVA==\n    client-key-data: S0VZ\n', `    client-certificate: ${pem}\n    client-key: ${pem}\n`));
    expect(pointAtRotatingCert(r.text, 'cp1', pem, '/etc/kubernetes/kubelet.conf')).toEqual({ text: r.text, changed: false });
  });

  test('a kubelet.conf for another node is refused', () => {
    expect(() => pointAtRotatingCert(conf, 'cp2', pem, '/etc/kubernetes/kubelet.conf')).toThrow('the file "/etc/kubernetes/kubelet.conf" does not contain authentication for user "cp2"');
  });
});
