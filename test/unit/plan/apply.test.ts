/**
 * Applying a plan's steps that need no cluster: a symbolic link recorded by the dry-run host is
 * made by apply (a dated kubelet pair and its -current link, as a CA rotation plans them), and a
 * CA rotation node step is handed to the command layer's runner with what the plan recorded.
 */
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { buildPlan } from '../../../src/plan/build.js';
import { applyPlan, type ApplyDeps } from '../../../src/plan/apply.js';
import type { CertsRotateCaNodeStep } from '../../../src/plan/types.js';
import { DryRunHost } from '../../../src/host/dry-run-host.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import { tempRoot } from '../../helpers/temp-root.js';

const meta = { command: 'certs rotate-ca node', phases: [], rootfs: '/', createdAt: new Date('2026-11-29T15:00:00Z'), tsadmVersion: '0.1.0' };
const PKI = '/var/lib/kubelet/pki';

test('a planned file and link are made by apply, the link under its planned name, read through', async () => {
  const root = tempRoot({ [`${PKI}/kubelet-client-2026-01-01-00-00-00.pem`]: { content: 'OLD', mode: 0o600 } });
  try {
    const dry = new DryRunHost(new RootedHost(root.dir));
    await dry.writeFile(`${PKI}/kubelet-client-2026-11-29-15-00-00.pem`, 'NEW', { mode: 0o600, kind: 'private-key', description: 'pair' });
    await dry.symlink(`${PKI}/kubelet-client-current.pem`, 'kubelet-client-2026-11-29-15-00-00.pem');
    expect(existsSync(root.at(`${PKI}/kubelet-client-current.pem`))).toBe(false);
    const plan = JSON.parse(JSON.stringify(buildPlan(dry.journal, { ...meta, rootfs: root.dir }, { keys: true }))) as ReturnType<typeof buildPlan>;
    const deps: ApplyDeps = { host: new RootedHost(root.dir), log: new PhaseLogger({ emit: () => undefined, close: () => Promise.resolve() }), openApi: () => Promise.reject(new Error('no API in this plan')) };
    expect(await applyPlan(plan, deps, { checkOnly: false })).toEqual({ steps: 2, applied: true });
    expect(readlinkSync(root.at(`${PKI}/kubelet-client-current.pem`))).toBe('kubelet-client-2026-11-29-15-00-00.pem');
    expect(readFileSync(root.at(`${PKI}/kubelet-client-current.pem`), 'utf8')).toBe('NEW');
    expect(readFileSync(root.at(`${PKI}/kubelet-client-2026-01-01-00-00-00.pem`), 'utf8')).toBe('OLD');
  } finally {
    root.cleanup();
  }
});

test('a CA rotation node step goes to the runner the command layer gives, as recorded; without one, apply refuses it', async () => {
  const root = tempRoot();
  try {
    const dry = new DryRunHost(new RootedHost(root.dir));
    dry.journal.record({ type: 'certs-rotate-ca-node', id: 'ab12cd34', rotationPhase: 'sign-new', nodeName: 'cp2', rotationKeyFile: '/var/lib/operator/rotation.key', kubeconfig: '/etc/kubernetes/admin.conf' });
    const plan = buildPlan(dry.journal, { ...meta, rootfs: root.dir }, { keys: true });
    const ran: CertsRotateCaNodeStep[] = [];
    const base = { host: new RootedHost(root.dir), log: new PhaseLogger({ emit: () => undefined, close: () => Promise.resolve() }), openApi: () => Promise.reject(new Error('no API')) };
    await applyPlan(plan, { ...base, rotateCaNode: (s) => { ran.push(s); return Promise.resolve(); } }, { checkOnly: false });
    expect(ran).toEqual([{ type: 'certs-rotate-ca-node', id: 'ab12cd34', rotationPhase: 'sign-new', nodeName: 'cp2', rotationKeyFile: '/var/lib/operator/rotation.key', kubeconfig: '/etc/kubernetes/admin.conf' }]);
    await expect(applyPlan(plan, base, { checkOnly: false })).rejects.toThrow('this apply cannot run a CA rotation step');
  } finally {
    root.cleanup();
  }
});
