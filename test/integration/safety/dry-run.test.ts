/**
 * Dry-run is harmless (issue 9 §6): against a real apiserver, every --dry-run of init, join,
 * reset, token and certs renew leaves the rootfs (content, mode, mtime of every file) and the
 * cluster (resourceVersion of every object tsadm touches) exactly as they were, and restarts
 * nothing (the service manager records any call but "is-active").
 */
import { jest } from '@jest/globals';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NO_KUBELET, clusterSnapshot, startClusterRoot, type ClusterRoot } from './cluster-root.js';
import { diffSnapshots, snapshot, tsadm, type CliResult } from '../../helpers/built-cli.js';
import { describeWithOracles, oracles } from '../../helpers/oracle.js';

jest.setTimeout(10 * 60_000);

describeWithOracles([oracles.built, oracles.apiServer])('dry runs change nothing', () => {
  let c: ClusterRoot;
  let calls: string;
  let recorder: string;
  let joinRoot: string;
  let freshRoot: string;

  beforeAll(async () => {
    c = await startClusterRoot({ controllers: ['bootstrapsigner', 'tokencleaner'] });
    calls = path.join(c.scratch.dir, 'service-calls.log');
    recorder = path.join(c.scratch.dir, 'service-manager.sh');
    writeFileSync(recorder, `#!/bin/sh\necho "$*" >> ${calls}\nexit 0\n`);
    chmodSync(recorder, 0o755);
    writeFileSync(calls, '');
    joinRoot = path.join(c.scratch.dir, 'joiner');
    freshRoot = path.join(c.scratch.dir, 'fresh');
    mkdirSync(joinRoot);
    mkdirSync(freshRoot);
  }, 5 * 60_000);
  afterAll(async () => {
    await c?.stop();
  });

  /** Runs a dry run and proves it changed nothing on disk, in the cluster or in services. */
  async function harmless(args: string[]): Promise<CliResult> {
    const disk = snapshot(c.scratch.dir);
    const cluster = await clusterSnapshot(c.server);
    writeFileSync(calls, '');
    const r = await tsadm([...args, '-v', '1'], { env: { TSADM_SERVICE_MANAGER: recorder }, timeoutMs: 120_000 });
    const after = snapshot(c.scratch.dir);
    // The call log itself is the one file that may change, and only with "is-active" lines.
    const changed = diffSnapshots(disk, after).filter((d) => !d.endsWith('/service-calls.log content') && !d.endsWith('/service-calls.log mtime (rewritten)'));
    const restarts = readFileSync(calls, 'utf8').split('\n').filter((l) => l && !l.startsWith('is-active'));
    expect({ changed, restarts, cluster: await clusterSnapshot(c.server) }).toEqual({ changed: [], restarts: [], cluster });
    return r;
  }
  const ok = (r: CliResult): void => expect({ code: r.code, output: r.code === 0 ? '' : `${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}` }).toEqual({ code: 0, output: '' });

  test('init --dry-run on an empty machine (only the CA): every phase planned, nothing done', async () => {
    writeFileSync(path.join(freshRoot, '.keep'), '');
    const r = await harmless(['init', '--dry-run', '--config', c.config, '--rootfs', freshRoot, '--upload-certs', '--skip-phases', 'preflight']);
    ok(r);
    expect(r.stdout).toContain('[dryrun]');
    expect(r.stdout).toContain('/etc/kubernetes/pki/apiserver.key');
  });

  test('after a real init: init, upload-certs, token create/delete, certs renew and reset dry runs', async () => {
    const real = await tsadm(['init', '--config', c.config, '--rootfs', c.root, '--upload-certs', '--skip-phases', NO_KUBELET], { timeoutMs: 120_000 });
    ok(real);
    ok(await harmless(['init', '--dry-run', '--config', c.config, '--rootfs', c.root, '--upload-certs', '--skip-phases', 'preflight']));
    ok(await harmless(['init', 'phase', 'upload-certs', '--upload-certs', '--dry-run', '--config', c.config, '--rootfs', c.root]));
    ok(await harmless(['token', 'create', '--dry-run', '--rootfs', c.root]));
    ok(await harmless(['token', 'delete', c.token, '--dry-run', '--rootfs', c.root]));
    ok(await harmless(['certs', 'renew', 'all', '--dry-run', '--rootfs', c.root]));
    ok(await harmless(['reset', '--dry-run', '--force', '--rootfs', c.root]));
  });

  test('join --dry-run, worker and control plane', async () => {
    const join = ['join', `127.0.0.1:${c.port}`, '--token', c.token, '--discovery-token-ca-cert-hash', c.caHash, '--node-name', 'n2', '--rootfs', joinRoot, '--dry-run'];
    ok(await harmless([...join, '--skip-phases', 'preflight']));
    // check-etcd and control-plane-join/etcd read the etcd member list (no etcd runs here).
    ok(await harmless([...join, '--control-plane', '--certificate-key', c.certificateKey, '--apiserver-advertise-address', '10.250.0.42', '--skip-phases', 'preflight,check-etcd,control-plane-join/etcd']));
  });
});
