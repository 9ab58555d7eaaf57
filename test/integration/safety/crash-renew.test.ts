/**
 * Kill-safety of `tsadm certs renew --auto` (the built CLI, killed with a real SIGKILL after its
 * Nth file write, TSADM_FAULT_AFTER, at each N, both right after a write and with the Nth write's
 * temp file complete but not renamed): after every kill, each certificate's key still matches it
 * (openssl), and kube-scheduler's manifest is either in place or waiting in its copy; a plain
 * re-run then converges: every due certificate renewed, the others untouched, the manifest back
 * byte for byte, no journal or copy left, and kube-scheduler started after its new kubeconfig
 * was written (it runs with the new certificate). The API is unreachable (a closed loopback
 * port) and the certificates expire in 5 days, so the renewal goes ahead without the Lease;
 * `--lease-wait 0s` skips the default two minutes of retrying a failing API before that (the wait
 * itself is tested in test/unit/certs-lifecycle/auto-run.test.ts), else every run here would
 * spend them.
 */
import { jest } from '@jest/globals';
import { cpSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describeBuilt, scratchDir, tsadm, type Scratch } from '../../helpers/built-cli.js';
import { DAY, DUE, FRESH, fileOf, fingerprint, keyMatches, makeRoot, notAfter } from '../../helpers/auto-renew.js';
import { KC } from '../../helpers/certs-lifecycle.js';
import { SCHEDULER_MANIFEST, StandInKubelet, freePort, probedPodManifest } from '../../helpers/stand-in-kubelet.js';
import type { TempRoot } from '../../helpers/temp-root.js';

jest.setTimeout(15 * 60_000);

describeBuilt('kill renew --auto at every write, re-run', () => {
  let base: TempRoot;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    base = await makeRoot(5, port);
    const admin = readFileSync(base.at(`${KC}/admin.conf`), 'utf8').replace(/server: \S+/, `server: https://127.0.0.1:${await freePort()}`);
    writeFileSync(base.at('/lease.conf'), admin, { mode: 0o600 });
  });
  afterAll(() => base?.cleanup());

  const args = (root: string) => ['certs', 'renew', '--auto', '--within', '30d', '--rootfs', root, '--config', path.join(root, 'kubeadm.yaml'), '--kubeconfig', '/lease.conf', '--lease-wait', '0s'];

  test.each(['done', 'before-rename'] as const)('stage %s: no key/certificate mismatch after any kill, and a re-run converges', async (stage) => {
    const baseFp = fingerprint(base);
    const problems: string[] = [];
    let n = 1;
    for (; n <= 30; n++) {
      const s: Scratch = scratchDir('tsadm-crash-renew-');
      const root = { dir: s.dir, at: (p: string) => path.join(s.dir, p), cleanup: () => s.cleanup() };
      for (const e of readdirSync(base.dir)) cpSync(path.join(base.dir, e), path.join(s.dir, e), { recursive: true, preserveTimestamps: true });
      const kubelet = new StandInKubelet(root, port);
      await kubelet.start();
      try {
        const killed = await tsadm(args(s.dir), { env: { TSADM_FAULT_AFTER: String(n), TSADM_FAULT_STAGE: stage } });
        if (killed.signal !== 'SIGKILL') {
          if (killed.code !== 0) problems.push(`N=${n}: the run failed: ${killed.stderr}`);
          break;
        }
        for (const name of [...DUE, ...FRESH]) if (!keyMatches(root, name)) problems.push(`N=${n} after kill: ${name}: key and certificate do not match`);
        const tmp = root.at('/etc/kubernetes/tmp');
        const copies = existsSync(tmp) ? readdirSync(tmp).filter((d) => d.startsWith('tsadm-restart-')) : [];
        if (!existsSync(root.at(SCHEDULER_MANIFEST)) && copies.length === 0) problems.push(`N=${n} after kill: the manifest is gone with no copy`);

        const rerun = await tsadm(args(s.dir));
        if (rerun.code !== 0) problems.push(`N=${n} re-run failed (${rerun.code}): ${rerun.stderr}`);
        for (const name of DUE) if (notAfter(root, name) < Date.now() + 360 * DAY) problems.push(`N=${n} after re-run: ${name} not renewed`);
        for (const name of [...DUE, ...FRESH]) if (!keyMatches(root, name)) problems.push(`N=${n} after re-run: ${name}: key and certificate do not match`);
        const fp = fingerprint(root);
        // content only: the copy into the scratch dir does not keep sub-millisecond mtimes
        const hash = (m: Map<string, string>, f: string) => m.get(f)?.split(' ')[0];
        for (const name of FRESH) if (hash(fp, fileOf(name)) !== hash(baseFp, fileOf(name))) problems.push(`N=${n} after re-run: ${name} was changed`);
        if (readFileSync(root.at(SCHEDULER_MANIFEST), 'utf8') !== probedPodManifest(port)) problems.push(`N=${n} after re-run: the manifest differs`);
        if (existsSync(tmp) && readdirSync(tmp).length > 0) problems.push(`N=${n} after re-run: left in ${tmp}: ${readdirSync(tmp).join(', ')}`);
        const leftTemps = [...fp.keys()].filter((f) => /\.tsadm-(\d+-)?[0-9a-f]{12}$/.test(f));
        if (leftTemps.length > 0) problems.push(`N=${n} after re-run: temp files ${leftTemps.join(', ')}`);
        const written = statSync(root.at(fileOf('scheduler.conf'))).mtimeMs;
        if (!kubelet.startTimes.some((t) => t > written)) problems.push(`N=${n} after re-run: kube-scheduler was not started after scheduler.conf was renewed`);
      } finally {
        await kubelet.stop();
        s.cleanup();
      }
    }
    expect(problems).toEqual([]);
    // journal, three certificates, the manifest's copy and its return: six writes, each a kill point
    expect(n - 1).toBeGreaterThanOrEqual(6);
  });
});
