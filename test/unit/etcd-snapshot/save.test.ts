/**
 * `tsadm etcd snapshot save` against real etcd processes (3.4 and 3.5, mutual TLS on loopback):
 * keys written, a snapshot streamed to a --rootfs through the host seam, then the oracle — etcd's
 * own restore tool (etcdctl 3.4 / etcdutl 3.5) restores the file into a new data directory, an
 * etcd started on it answers with every key and value and is a one-member cluster. Damaged copies
 * (truncated, one byte flipped) are refused by tsadm's check as by etcd's tool, and a damaged
 * stream never reaches the target name.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TsadmError } from '../../../src/errors.js';
import { EtcdClient } from '../../../src/etcd-client/client.js';
import { postJson } from '../../../src/etcd-client/transport.js';
import { checkSnapshotFile } from '../../../src/etcd-snapshot/files.js';
import { restoreCommand } from '../../../src/etcd-snapshot/restore-plan.js';
import { saveSnapshot } from '../../../src/etcd-snapshot/save.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { describeEachEtcd, etcdLab, type EtcdLab, type EtcdMemberProcess } from '../../helpers/etcd-process.js';
import { issue, makeCA } from '../../helpers/tls-fixtures.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';
import { tsadmErrorOf } from '../../helpers/tsadm-error.js';
import { runCli } from '../../helpers/run-cli.js';
import { describeBuilt, tsadm } from '../../helpers/built-cli.js';
import type { Plan } from '../../../src/plan/types.js';

const KEYS = 300;
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const value = (i: number): string => `value-${i}-${'x'.repeat(200)}`;

/** etcd's restore tool next to the etcd binary: etcdutl (3.5+) or etcdctl (3.4). */
function restoreToolBeside(etcdPath: string): { tool: 'etcdutl' | 'etcdctl'; bin: string } {
  const utl = path.join(path.dirname(etcdPath), 'etcdutl');
  return existsSync(utl) ? { tool: 'etcdutl', bin: utl } : { tool: 'etcdctl', bin: path.join(path.dirname(etcdPath), 'etcdctl') };
}

describeEachEtcd('etcd snapshot save on real etcd', (etcd) => {
  let lab: EtcdLab;
  let m1: EtcdMemberProcess;
  let root: TempRoot;

  beforeAll(async () => {
    lab = await etcdLab(etcd.path);
    m1 = await lab.member('s1');
    await lab.startSingle(m1);
    for (let i = 0; i < KEYS; i++) await postJson(m1.client, '/v3/kv/put', { key: b64(`k/${String(i).padStart(4, '0')}`), value: b64(value(i)) }, lab.tls, 10_000);
    root = tempRoot();
  }, 120_000);

  afterAll(async () => {
    await lab?.close();
    root?.cleanup();
  }, 30_000);

  test('saves a verified snapshot (0600) that etcd\'s own restore tool turns into a one-member cluster holding every key', async () => {
    const host = new RootedHost(root.dir);
    const file = '/var/lib/tsadm/etcd-snapshots/one.db';
    const result = await saveSnapshot(host, { endpoint: m1.client, tls: lab.tls, file });
    const real = root.at(file);
    expect(statSync(real).mode & 0o777).toBe(0o600);
    expect(result.size).toBe(statSync(real).size);
    expect(result.sha256).toBe(createHash('sha256').update(readFileSync(real)).digest('hex'));
    expect((await checkSnapshotFile(host, file)).ok).toBe(true);
    // Nothing but the snapshot in its directory (no temp file left).
    expect(readdirSync(path.dirname(real))).toEqual(['one.db']);

    const r1 = await lab.member('r1');
    const { tool, bin } = restoreToolBeside(etcd.path);
    const [, ...args] = restoreCommand(tool, real, path.join(lab.dir, 'r1.data'), { name: 'r1', peerURL: r1.peer });
    execFileSync(bin, args, { env: { ...process.env, ETCDCTL_API: '3' }, stdio: 'pipe' });
    await lab.startSingle(r1);
    const range = await postJson(r1.client, '/v3/kv/range', { key: b64('k/'), range_end: b64('k0') }, lab.tls, 10_000) as { kvs?: Array<{ key: string; value: string }>; count?: string };
    expect(Number(range.count)).toBe(KEYS);
    const kvs = new Map((range.kvs ?? []).map((kv) => [Buffer.from(kv.key, 'base64').toString(), Buffer.from(kv.value, 'base64').toString()]));
    expect(kvs.get('k/0000')).toBe(value(0));
    expect(kvs.get('k/0299')).toBe(value(299));
    const members = await new EtcdClient([r1.client], { tls: lab.tls }).memberList();
    expect(members.map((m) => [m.name, m.peerURLs])).toEqual([['r1', [r1.peer]]]);
    await lab.stop(r1);
  }, 90_000);

  test('a truncated or flipped-byte copy is refused by the check, as etcd\'s tool refuses the flipped one', async () => {
    const host = new RootedHost(root.dir);
    const good = readFileSync(root.at('/var/lib/tsadm/etcd-snapshots/one.db'));
    writeFileSync(root.at('/truncated.db'), good.subarray(0, good.length - 100));
    // Cut at a page boundary, the size looks right: the checksum (now of other bytes) does not match.
    writeFileSync(root.at('/page-cut.db'), good.subarray(0, good.length - 4096));
    const flipped = Buffer.from(good);
    flipped[Math.floor(flipped.length / 2)]! ^= 0x01;
    writeFileSync(root.at('/flipped.db'), flipped);
    writeFileSync(root.at('/notdb.db'), Buffer.alloc(good.length));
    expect(await checkSnapshotFile(host, '/truncated.db')).toMatchObject({ ok: false });
    expect((await checkSnapshotFile(host, '/truncated.db')).problem).toContain('truncated');
    expect(await checkSnapshotFile(host, '/page-cut.db')).toMatchObject({ ok: false });
    expect((await checkSnapshotFile(host, '/page-cut.db')).problem).toContain('checksum');
    expect(await checkSnapshotFile(host, '/flipped.db')).toMatchObject({ ok: false });
    expect((await checkSnapshotFile(host, '/flipped.db')).problem).toContain('checksum');
    expect(await checkSnapshotFile(host, '/notdb.db')).toMatchObject({ ok: false });
    expect((await checkSnapshotFile(host, '/notdb.db')).problem).toContain('bbolt');
    const { tool, bin } = restoreToolBeside(etcd.path);
    const [, ...args] = restoreCommand(tool, root.at('/flipped.db'), path.join(lab.dir, 'flipped.data'), { name: 'x', peerURL: 'https://127.0.0.1:1' });
    const run = spawnSync(bin, args, { env: { ...process.env, ETCDCTL_API: '3' }, encoding: 'utf8' });
    expect(run.status).not.toBe(0);
    expect(`${run.stderr}${run.stdout}`).toMatch(/expected sha256/);
  }, 30_000);

  test('a damaged stream never reaches the target name; an old file there stays', async () => {
    const host = new RootedHost(root.dir);
    const good = readFileSync(root.at('/var/lib/tsadm/etcd-snapshots/one.db'));
    const flipped = Buffer.from(good);
    flipped[100]! ^= 0x80;
    async function* chunks(): AsyncGenerator<Buffer> {
      for (let i = 0; i < flipped.length; i += 32 * 1024) yield await Promise.resolve(flipped.subarray(i, i + 32 * 1024));
    }
    writeFileSync(root.at('/old.db'), 'previous');
    const err = await tsadmErrorOf(saveSnapshot(host, { endpoint: m1.client, tls: lab.tls, file: '/old.db', source: chunks() }));
    expect(err.message).toMatch(/not a whole etcd snapshot: its SHA-256 checksum does not match/);
    expect(err.message).not.toContain('\n');
    expect(readFileSync(root.at('/old.db'), 'utf8')).toBe('previous');
    expect(readdirSync(root.dir).filter((n) => n.startsWith('.old.db'))).toEqual([]);
  });

  /** A --rootfs whose CERT_DIR/etcd/ holds the CA and the client pair etcd accepts, as on a control plane. */
  function rootWithClientPair(certDir: string): TempRoot {
    const pem = (x: string | Buffer): string => x.toString();
    return tempRoot({
      [`${certDir}/etcd/ca.crt`]: pem(lab.tls.ca),
      [`${certDir}/etcd/healthcheck-client.crt`]: pem(lab.tls.cert),
      [`${certDir}/etcd/healthcheck-client.key`]: { content: pem(lab.tls.key), mode: 0o600 },
    });
  }

  test('--plan: the planning run writes only the plan; tsadm apply streams a verified snapshot then, and refuses to do it twice', async () => {
    const planned = rootWithClientPair('/etc/kubernetes/pki');
    try {
      const planFile = planned.at('/plan.json');
      const file = '/var/lib/tsadm/etcd-snapshots/planned.db';
      const made = await runCli(['etcd', 'snapshot', 'save', file, '--rootfs', planned.dir, '--endpoint', m1.client, '--plan', planFile]);
      expect(`${made.code}\n${made.stderr}`).toMatch(/^0\n/);
      expect(existsSync(planned.at(file))).toBe(false);
      const plan = JSON.parse(readFileSync(planFile, 'utf8')) as Plan;
      expect(plan.command).toBe('etcd snapshot save');
      expect(plan.steps).toEqual([{ type: 'etcd-snapshot', path: file, mode: '0600', endpoint: m1.client, certDir: '/etc/kubernetes/pki' }]);
      // The client identity it will use is held as it was (a changed key or CA makes apply refuse).
      expect(plan.preconditions.files.map((f) => `${f.path} ${f.state}`)).toEqual(expect.arrayContaining([
        '/etc/kubernetes/pki/etcd/ca.crt file', '/etc/kubernetes/pki/etcd/healthcheck-client.key file', `${file} absent`,
      ]));

      const applied = await runCli(['apply', planFile]);
      expect(`${applied.code}\n${applied.stderr}`).toMatch(/^0\n/);
      expect(statSync(planned.at(file)).mode & 0o777).toBe(0o600);
      const check = await checkSnapshotFile(new RootedHost(planned.dir), file);
      expect(check.ok).toBe(true);
      // etcd's own tool agrees that it is a whole snapshot.
      const { tool, bin } = restoreToolBeside(etcd.path);
      const status = spawnSync(bin, ['snapshot', 'status', planned.at(file), '-w', 'json'], { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' } });
      expect(`${tool} ${status.status}\n${status.stderr}`).toMatch(/^\S+ 0\n/);

      // The snapshot the plan made is there now: a second apply refuses instead of replacing it.
      const again = await runCli(['apply', planFile]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`${file}: was absent when the plan was made, is a file`);
      // Nor does a new plan name an existing file.
      const onto = await runCli(['etcd', 'snapshot', 'save', file, '--rootfs', planned.dir, '--endpoint', m1.client, '--plan', planned.at('/plan2.json')]);
      expect(onto.code).toBe(3);
      expect(onto.stderr).toContain(`${file} exists: a plan saves a snapshot to a new file`);
      expect(existsSync(planned.at('/plan2.json'))).toBe(false);
    } finally {
      planned.cleanup();
    }
  }, 60_000);

  describeBuilt('the built executable', () => {
    test('saves from the IP endpoint without Node\'s DEP0123 (TLS ServerName is an IP) on stderr', async () => {
      const r = rootWithClientPair('/pki');
      try {
        expect(m1.client).toMatch(/^https:\/\/127\.0\.0\.1:/);
        const out = await tsadm(['etcd', 'snapshot', 'save', '/snap.db', '--rootfs', r.dir, '--cert-dir', '/pki', '--endpoint', m1.client]);
        expect(`${out.code}\n${out.stderr}`).toMatch(/^0\n/);
        expect(out.stderr).not.toContain('DEP0123');
        expect(out.stderr).not.toContain('DeprecationWarning');
        expect((await checkSnapshotFile(new RootedHost(r.dir), '/snap.db')).ok).toBe(true);
      } finally {
        r.cleanup();
      }
    }, 60_000);

    test('a plain save (the launcher\'s direct path) prints what the full parser\'s path prints', async () => {
      const r = rootWithClientPair('/pki');
      try {
        const base = ['etcd', 'snapshot', 'save', '--rootfs', r.dir, '--cert-dir', '/pki', '--endpoint', m1.client];
        // `-v 0` changes nothing but makes the command line not plain: it goes through yargs.
        const [plain, parsed] = [await tsadm([...base, '/plain.db']), await tsadm([...base, '/parsed.db', '-v', '0'])];
        for (const out of [plain, parsed]) expect(`${out.code}\n${out.stderr}`).toMatch(/^0\n$/);
        const shape = (text: string): string => text.replace(/\/(plain|parsed)\.db/g, '/X.db').replace(/[0-9a-f]{64}/g, 'SHA');
        expect(shape(plain.stdout)).toBe(shape(parsed.stdout));
        expect(plain.stdout).toMatch(/^\[snapshot\] saved \/plain\.db \(\d+\.\d MiB, sha256 [0-9a-f]{64}\) from https:\/\/127\.0\.0\.1:\d+\n$/);
        const [plainJson, parsedJson] = [await tsadm([...base, '/p2.db', '-o', 'json']), await tsadm([...base, '/q2.db', '-o', 'json', '-v', '0'])];
        const result = (text: string): Record<string, unknown> => JSON.parse(text.trim().split('\n').pop() as string) as Record<string, unknown>;
        const keys = (o: Record<string, unknown>): string[] => Object.keys(o.data as object).sort();
        expect(result(plainJson.stdout)).toMatchObject({ type: 'result', command: 'etcd snapshot save', ok: true, data: { path: '/p2.db', endpoint: m1.client } });
        expect(keys(result(plainJson.stdout))).toEqual(keys(result(parsedJson.stdout)));
      } finally {
        r.cleanup();
      }
    }, 60_000);
  });

  test('an etcd that refuses the client certificate is a one-line error, nothing written', async () => {
    const host = new RootedHost(root.dir);
    const foreign = await issue(await makeCA('other'), 'intruder', { ips: [], dns: [], usages: ['clientAuth'] });
    const err = await tsadmErrorOf(saveSnapshot(host, { endpoint: m1.client, tls: { ca: lab.ca.pem, cert: foreign.certPem, key: foreign.keyPem }, file: '/refused.db' }));
    expect(err).toBeInstanceOf(TsadmError);
    expect(err.message).toMatch(/^etcd snapshot from https:\/\/127\.0\.0\.1:\d+ failed: /);
    expect(existsSync(root.at('/refused.db'))).toBe(false);
  });
});
