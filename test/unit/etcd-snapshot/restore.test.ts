/**
 * `snapshot restore`'s steps on a --rootfs with real etcd: a snapshot of a real etcd holding keys,
 * a control plane's manifests, an old data directory. The restore tool is the real etcdctl (3.4) /
 * etcdutl (3.5) binary run on the rootfs paths (standing in for the static Pod that runs it from
 * the etcd image on a machine), and "the control plane comes back" is a real etcd started on the
 * restored data directory, which must answer with every key as a one-member cluster. A damaged
 * snapshot changes nothing; a run that fails midway is finished by the next one.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EtcdClient } from '../../../src/etcd-client/client.js';
import { postJson } from '../../../src/etcd-client/transport.js';
import { checkSnapshotFile } from '../../../src/etcd-snapshot/files.js';
import { restoreSnapshot, type RestoreDeps, type ToolRun } from '../../../src/etcd-snapshot/restore.js';
import { ASIDE_DIR, RESTORE_RECORD_FILE, RESTORE_STATE_FILE } from '../../../src/etcd-snapshot/restore-plan.js';
import { saveSnapshot } from '../../../src/etcd-snapshot/save.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import type { Logger } from '../../../src/log/events.js';
import { describeEachEtcd, etcdLab, type EtcdLab, type EtcdMemberProcess } from '../../helpers/etcd-process.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';
import { tsadmErrorOf } from '../../helpers/tsadm-error.js';
import { runCli } from '../../helpers/run-cli.js';
import { applyPlan } from '../../../src/plan/apply.js';
import { readPlanFile } from '../../../src/plan/file.js';
import { PhaseLogger } from '../../../src/log/logger.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const quiet: Logger = { info: () => undefined, warn: () => undefined, debug: () => undefined, output: () => undefined, event: () => undefined };
const MANIFESTS = ['etcd.yaml', 'kube-apiserver.yaml', 'kube-controller-manager.yaml', 'kube-scheduler.yaml'];

function etcdManifest(image: string, name: string, peer: string): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: etcd
  namespace: kube-system
spec:
  containers:
  - command:
    - etcd
    - --name=${name}
    - --data-dir=/var/lib/etcd
    - --initial-advertise-peer-urls=${peer}
    - --initial-cluster=${name}=${peer}
    - --listen-client-urls=https://127.0.0.1:2379
    image: ${image}
    name: etcd
  volumes:
  - hostPath:
      path: /var/lib/etcd
      type: DirectoryOrCreate
    name: etcd-data
`;
}

describeEachEtcd('etcd snapshot restore on a rootfs with real etcd', (etcd) => {
  let lab: EtcdLab;
  let source: EtcdMemberProcess;
  const utl = path.join(path.dirname(etcd.path), 'etcdutl');
  // The image tag decides the tool (etcdutl from 3.5); the binary beside this etcd is that tool.
  const image = `registry.k8s.io/etcd:${etcd.version ?? '3.4.0'}-0`;
  const toolBin = existsSync(utl) ? utl : path.join(path.dirname(etcd.path), 'etcdctl');

  beforeAll(async () => {
    lab = await etcdLab(etcd.path);
    source = await lab.member('src');
    await lab.startSingle(source);
    for (let i = 0; i < 50; i++) await postJson(source.client, '/v3/kv/put', { key: b64(`cm/${i}`), value: b64(`data-${i}`) }, lab.tls, 10_000);
  }, 60_000);

  afterAll(async () => {
    await lab?.close();
  }, 30_000);

  async function machine(member: EtcdMemberProcess): Promise<{ root: TempRoot; host: RootedHost; snapshot: string }> {
    const root = tempRoot({
      '/etc/kubernetes/manifests/etcd.yaml': etcdManifest(image, member.name, member.peer),
      '/etc/kubernetes/manifests/kube-apiserver.yaml': 'apiserver\n',
      '/etc/kubernetes/manifests/kube-controller-manager.yaml': 'cm\n',
      '/etc/kubernetes/manifests/kube-scheduler.yaml': 'sched\n',
      '/var/lib/etcd/member/old-marker': 'old data\n',
    });
    const host = new RootedHost(root.dir);
    const snapshot = '/var/lib/tsadm/etcd-snapshots/s.db';
    await saveSnapshot(host, { endpoint: source.client, tls: lab.tls, file: snapshot });
    return { root, host, snapshot };
  }

  function deps(root: TempRoot, member: EtcdMemberProcess, seen: string[], failTool = false): RestoreDeps {
    return {
      runTool: (run: ToolRun) => {
        seen.push(`tool ${run.command.slice(0, 3).join(' ')} ${run.image}`);
        if (failTool) return Promise.reject(new Error('tool crashed'));
        // Host paths in the command are rootfs paths here (the Pod mounts them at the same paths).
        const args = run.command.slice(1).map((a) => a.replace(/(^|=)\/(var|etc)\//, (_m, p: string, d: string) => `${p}${root.dir}/${d}/`));
        execFileSync(toolBin, args, { env: { ...process.env, ETCDCTL_API: '3' }, stdio: 'pipe' });
        return Promise.resolve();
      },
      waitContainersGone: (names) => {
        seen.push(`gone ${names.join(',')} manifests=${readdirSync(root.at('/etc/kubernetes/manifests')).join(',')}`);
        return Promise.resolve();
      },
      waitControlPlane: async () => {
        seen.push(`back manifests=${readdirSync(root.at('/etc/kubernetes/manifests')).sort().join(',')}`);
        symlinkSync(root.at('/var/lib/etcd'), path.join(lab.dir, `${member.name}.data`));
        await lab.startSingle(member);
      },
      now: () => new Date('2026-11-27T12:00:00Z'),
    };
  }

  test('restores as a new one-member cluster, keeps the old data, brings the manifests back', async () => {
    const member = await lab.member('cp1');
    const { root, host, snapshot } = await machine(member);
    try {
      const seen: string[] = [];
      const result = await restoreSnapshot(host, quiet, snapshot, deps(root, member, seen));
      expect(seen[0]).toBe('gone etcd,kube-apiserver,kube-controller-manager,kube-scheduler manifests=');
      expect(seen[1]).toBe(`tool ${existsSync(utl) ? 'etcdutl' : 'etcdctl'} snapshot restore ${image}`);
      expect(seen[2]).toBe(`back manifests=${MANIFESTS.join(',')}`);
      expect(result).toMatchObject({ dataDir: '/var/lib/etcd', oldDataDir: '/var/lib/etcd.tsadm-20261127T120000Z', member: 'cp1' });
      expect(readFileSync(root.at('/var/lib/etcd.tsadm-20261127T120000Z/member/old-marker'), 'utf8')).toBe('old data\n');
      expect(existsSync(root.at(RESTORE_STATE_FILE)) || existsSync(root.at(ASIDE_DIR))).toBe(false);
      // What was restored, and when, is left for the next run (and for a plan's preconditions).
      expect(JSON.parse(readFileSync(root.at(RESTORE_RECORD_FILE), 'utf8'))).toEqual({
        snapshot, sha256: result.sha256, oldDataDir: '/var/lib/etcd.tsadm-20261127T120000Z', restoredAt: '2026-11-27T12:00:00.000Z',
      });
      const range = await postJson(member.client, '/v3/kv/range', { key: b64('cm/'), range_end: b64('cm0') }, lab.tls, 10_000) as { count?: string; kvs?: Array<{ key: string; value: string }> };
      expect(Number(range.count)).toBe(50);
      expect(range.kvs?.map((kv) => Buffer.from(kv.value, 'base64').toString())).toContain('data-49');
      const members = await new EtcdClient([member.client], { tls: lab.tls }).memberList();
      expect(members.map((m) => [m.name, m.peerURLs])).toEqual([['cp1', [member.peer]]]);
    } finally {
      await lab.stop(member);
      root.cleanup();
    }
  }, 90_000);

  test('a damaged or truncated snapshot is refused with nothing changed', async () => {
    const member = await lab.member('cp2');
    const { root, host, snapshot } = await machine(member);
    try {
      const good = readFileSync(root.at(snapshot));
      writeFileSync(root.at('/cut.db'), good.subarray(0, good.length - 1000));
      const seen: string[] = [];
      const err = await tsadmErrorOf(restoreSnapshot(host, quiet, '/cut.db', deps(root, member, seen)));
      expect(err.message).toMatch(/^\/cut\.db is not a whole etcd snapshot: it is truncated/);
      expect(seen).toEqual([]);
      expect(readdirSync(root.at('/etc/kubernetes/manifests')).sort()).toEqual(MANIFESTS);
      expect(readdirSync(root.at('/var/lib'))).toEqual(['etcd', 'tsadm']);
      expect(readdirSync(root.at('/var/lib/tsadm'))).toEqual(['etcd-snapshots']);
      expect(readdirSync(root.at('/var/lib/etcd'))).toEqual(['member']);
      expect(readFileSync(root.at('/var/lib/etcd/member/old-marker'), 'utf8')).toBe('old data\n');
    } finally {
      root.cleanup();
    }
  });

  test('the snapshot replaced after its check (while the control plane stops): the checked bytes are restored, not the new file', async () => {
    const member = await lab.member('cp5');
    const { root, host, snapshot } = await machine(member);
    try {
      // Another whole snapshot, root's and 0600 like the first, holding one key more.
      await postJson(source.client, '/v3/kv/put', { key: b64('swapped-in'), value: b64('x') }, lab.tls, 10_000);
      await saveSnapshot(host, { endpoint: source.client, tls: lab.tls, file: '/var/lib/tsadm/etcd-snapshots/later.db' });
      const checked = createHash('sha256').update(readFileSync(root.at(snapshot))).digest('hex');
      const seen: string[] = [];
      const d = deps(root, member, seen);
      const result = await restoreSnapshot(host, quiet, snapshot, {
        ...d,
        waitContainersGone: async (names) => {
          renameSync(root.at('/var/lib/tsadm/etcd-snapshots/later.db'), root.at(snapshot));
          await d.waitContainersGone(names);
        },
      });
      expect(result.sha256).toBe(checked);
      expect(createHash('sha256').update(readFileSync(root.at(snapshot))).digest('hex')).not.toBe(checked);
      const range = await postJson(member.client, '/v3/kv/range', { key: b64('cm/'), range_end: b64('cm0'), count_only: true }, lab.tls, 10_000) as { count?: string };
      expect(Number(range.count)).toBe(50);
      const swapped = await postJson(member.client, '/v3/kv/range', { key: b64('swapped-in'), count_only: true }, lab.tls, 10_000) as { count?: string };
      expect(Number(swapped.count ?? 0)).toBe(0);
      // What is at the path now is a whole snapshot too: only which bytes were checked tells them apart.
      expect(await checkSnapshotFile(host, snapshot)).toMatchObject({ ok: true });
    } finally {
      await lab.stop(member);
      root.cleanup();
    }
  }, 90_000);

  test('a run that fails after stopping the control plane is finished by the next run', async () => {
    const member = await lab.member('cp3');
    const { root, host, snapshot } = await machine(member);
    try {
      const seen: string[] = [];
      await expect(restoreSnapshot(host, quiet, snapshot, deps(root, member, seen, true))).rejects.toThrow('tool crashed');
      expect(readdirSync(root.at(ASIDE_DIR)).sort()).toEqual(MANIFESTS);
      expect(JSON.parse(readFileSync(root.at(RESTORE_STATE_FILE), 'utf8'))).toMatchObject({ step: 'stopping' });
      // Another snapshot is refused while this one is unfinished.
      mkdirSync(root.at('/other'), { recursive: true });
      await saveSnapshot(host, { endpoint: source.client, tls: lab.tls, file: '/other/o.db' });
      await postJson(source.client, '/v3/kv/put', { key: b64('later'), value: b64('x') }, lab.tls, 10_000);
      await saveSnapshot(host, { endpoint: source.client, tls: lab.tls, file: '/other/o.db' });
      expect((await tsadmErrorOf(restoreSnapshot(new RootedHost(root.dir), quiet, '/other/o.db', deps(root, member, [])))).message).toMatch(/was interrupted/);
      const again: string[] = [];
      const result = await restoreSnapshot(new RootedHost(root.dir), quiet, snapshot, deps(root, member, again));
      expect(result.resumed).toBe(true);
      expect(again[2]).toBe(`back manifests=${MANIFESTS.join(',')}`);
      const range = await postJson(member.client, '/v3/kv/range', { key: b64('cm/'), range_end: b64('cm0'), count_only: true }, lab.tls, 10_000) as { count?: string };
      expect(Number(range.count)).toBe(50);
      expect(existsSync(root.at(RESTORE_STATE_FILE))).toBe(false);
    } finally {
      await lab.stop(member);
      root.cleanup();
    }
  }, 90_000);

  test('--plan: the planning run changes nothing and names the snapshot by its SHA-256; apply refuses a changed etcd.yaml or snapshot, then restores', async () => {
    const member = await lab.member('cp4');
    const { root, host, snapshot } = await machine(member);
    try {
      const planFile = root.at('/restore-plan.json');
      const sha256 = createHash('sha256').update(readFileSync(root.at(snapshot))).digest('hex');
      const made = await runCli(['etcd', 'snapshot', 'restore', snapshot, '--rootfs', root.dir, '--plan', planFile, '--timeout', '120']);
      expect(`${made.code}\n${made.stderr}`).toMatch(/^0\n/);
      // The tool would read the checked copy in the staging directory, never the file itself.
      expect(made.stdout).toContain(`would copy ${snapshot}, checked as it is read, to /var/lib/etcd/tsadm-restoring/snapshot.db`);
      expect(made.stdout).toContain(`would run ${existsSync(utl) ? 'etcdutl' : 'etcdctl'} snapshot restore /var/lib/etcd/tsadm-restoring/snapshot.db --data-dir=/var/lib/etcd/tsadm-restoring/data`);
      // Nothing moved: the manifests, the old data, no progress file, no aside directory.
      expect(readdirSync(root.at('/etc/kubernetes/manifests')).sort()).toEqual(MANIFESTS);
      expect(readFileSync(root.at('/var/lib/etcd/member/old-marker'), 'utf8')).toBe('old data\n');
      expect(existsSync(root.at(RESTORE_STATE_FILE)) || existsSync(root.at(ASIDE_DIR))).toBe(false);

      const plan = await readPlanFile(planFile);
      expect(plan.command).toBe('etcd snapshot restore');
      expect(plan.steps).toEqual([{ type: 'etcd-snapshot-restore', snapshot, sha256, certDir: '/etc/kubernetes/pki', timeoutSeconds: 120 }]);
      expect(plan.preconditions.files.map((f) => `${f.path} ${f.state}`)).toEqual(expect.arrayContaining([
        '/etc/kubernetes/manifests/etcd.yaml file', `${RESTORE_STATE_FILE} absent`, `${RESTORE_RECORD_FILE} absent`,
      ]));

      // etcd.yaml changed since the plan: apply refuses before the restore step.
      const etcdYaml = root.at('/etc/kubernetes/manifests/etcd.yaml');
      const planned = readFileSync(etcdYaml, 'utf8');
      writeFileSync(etcdYaml, planned.replace('--name=cp4', '--name=other'));
      const refused = await runCli(['apply', planFile]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('/etc/kubernetes/manifests/etcd.yaml');
      expect(readdirSync(root.at('/etc/kubernetes/manifests')).sort()).toEqual(MANIFESTS);
      writeFileSync(etcdYaml, planned);

      const seen: string[] = [];
      const applyDeps: Parameters<typeof applyPlan>[1] = {
        host, log: new PhaseLogger({ emit: () => undefined, close: () => Promise.resolve() }), openApi: () => Promise.reject(new Error('no API in this plan')),
        restore: async (step) => {
          seen.push(`restore ${step.snapshot}`);
          await restoreSnapshot(host, quiet, step.snapshot, deps(root, member, seen), { expectSha256: step.sha256 });
        },
      };
      // Another whole snapshot in its place (etcd moved on): refused by its SHA-256, nothing changed.
      const kept = readFileSync(root.at(snapshot));
      await postJson(source.client, '/v3/kv/put', { key: b64('after-plan'), value: b64('x') }, lab.tls, 10_000);
      await saveSnapshot(host, { endpoint: source.client, tls: lab.tls, file: snapshot });
      const err = await tsadmErrorOf(applyPlan(plan, applyDeps, { checkOnly: false }));
      expect(err.code).toBe('E_CONFLICT');
      expect(err.message).toBe(`${snapshot} changed since the plan was made (sha256 ${createHash('sha256').update(readFileSync(root.at(snapshot))).digest('hex')}, the plan has ${sha256}); nothing was changed`);
      expect(seen).toEqual([`restore ${snapshot}`]);
      expect(readdirSync(root.at('/etc/kubernetes/manifests')).sort()).toEqual(MANIFESTS);
      expect(existsSync(root.at(RESTORE_STATE_FILE))).toBe(false);
      writeFileSync(root.at(snapshot), kept);

      // As planned: the restore runs, and the member answers with every key.
      seen.length = 0;
      expect(await applyPlan(plan, applyDeps, { checkOnly: false })).toEqual({ steps: 1, applied: true });
      expect(seen[0]).toBe(`restore ${snapshot}`);
      expect(seen[3]).toBe(`back manifests=${MANIFESTS.join(',')}`);
      const range = await postJson(member.client, '/v3/kv/range', { key: b64('cm/'), range_end: b64('cm0'), count_only: true }, lab.tls, 10_000) as { count?: string };
      expect(Number(range.count)).toBe(50);

      // Applied once, the plan is spent: the restore's record is not as the plan found it.
      seen.length = 0;
      const twice = await tsadmErrorOf(applyPlan(plan, applyDeps, { checkOnly: false }));
      expect(twice.message).toMatch(new RegExp(`^refusing to apply the plan: 1 thing changed since it was made \\(${RESTORE_RECORD_FILE}: was absent when the plan was made, is a file`));
      expect(seen).toEqual([]);
    } finally {
      await lab.stop(member);
      root.cleanup();
    }
  }, 90_000);
});
