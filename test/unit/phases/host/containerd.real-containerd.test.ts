/**
 * What tsadm writes for containerd, read by the real containerd it is written for: the files of
 * planContainerd (config.toml when it writes or edits one, and the drop-in) go into a temp dir,
 * and `containerd --config <dir>/config.toml config dump` (no daemon: it only loads and merges
 * the configuration) must show tsadm's values as containerd's effective configuration — the
 * sandbox image, SystemdCgroup of the runc runtime, the runc v2 shim, and the package's own
 * settings kept (the CNI binary directory of Debian's config.toml). Against containerd 2.x
 * (Debian unstable's 2.1, provision stage debian-sid: config schema version 3, plugins
 * io.containerd.cri.v1.runtime and io.containerd.cri.v1.images) and the host's containerd 1.x
 * (bookworm's 1.6: version 2, plugin io.containerd.grpc.v1.cri, whose imports replace a plugin's
 * section whole). The only change to tsadm's text: the drop-in directory /etc/containerd/conf.d
 * of the `imports` line becomes the temp dir's. The kubelet of 1.20 cannot run on containerd 2
 * (no CRI v1alpha2), so containerd 2 is proven up to its configuration here.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { Host } from '../../../../src/host/host.js';
import { runningSystem } from '../../../../src/host/running-system.js';
import { realSystem } from '../../../../src/host/system-probe.js';
import { CONTAINERD_DROPIN, planContainerd, type ContainerdInput } from '../../../../src/phases/host/containerd.js';
import { debianSidRoot } from '../../../helpers/etcd-process.js';
import { describeWithOracles, fileOracle } from '../../../helpers/oracle.js';

const PAUSE = 'registry.local/k8s/pause:3.2';
/** The drop-in directory as tsadm writes it into the imports line. */
const DROPIN_DIR = path.posix.dirname(CONTAINERD_DROPIN);

interface Containerd {
  readonly title: string;
  readonly bin: string;
  readonly wantedMajor: number;
  /** Debian's packaged config.toml of this containerd (the package's conffile). */
  readonly packagedConfig: string;
  readonly howToGet: string;
}

const CONTAINERDS: readonly Containerd[] = [
  { title: 'containerd 1.x (the host\'s, Debian bookworm)', bin: '/usr/bin/containerd', wantedMajor: 1, packagedConfig: '/etc/containerd/config.toml', howToGet: 'apt-get install -y containerd (bash scripts/e2e/provision.sh does)' },
  { title: 'containerd 2.x (Debian unstable, provision stage debian-sid)', bin: path.join(debianSidRoot(), 'usr/bin/containerd'), wantedMajor: 2, packagedConfig: path.join(debianSidRoot(), 'etc/containerd/config.toml'), howToGet: 'bash scripts/e2e/provision.sh (stage debian-sid)' },
];

type Table = Record<string, unknown>;
const at = (t: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Table)[k] : undefined), t);

/** The effective values tsadm cares about, from a dump of either schema. */
function effective(dump: Table): { sandbox: unknown; runtimeType: unknown; systemdCgroup: unknown; sandboxer: unknown; cniBinDirs: unknown; restrictOom: unknown; binaryName: unknown } {
  const v3 = dump.version === 3;
  const runtime = v3 ? at(dump, 'plugins', 'io.containerd.cri.v1.runtime') : at(dump, 'plugins', 'io.containerd.grpc.v1.cri');
  const runc = at(runtime, 'containerd', 'runtimes', 'runc');
  return {
    sandbox: v3 ? at(dump, 'plugins', 'io.containerd.cri.v1.images', 'pinned_images', 'sandbox') : at(runtime, 'sandbox_image'),
    runtimeType: at(runc, 'runtime_type'),
    systemdCgroup: at(runc, 'options', 'SystemdCgroup'),
    sandboxer: at(runc, 'sandboxer'),
    cniBinDirs: v3 ? at(runtime, 'cni', 'bin_dirs') : [at(runtime, 'cni', 'bin_dir')],
    restrictOom: at(runtime, 'restrict_oom_score_adj'),
    binaryName: at(runc, 'options', 'BinaryName'),
  };
}

for (const ctd of CONTAINERDS) {
  describeWithOracles([fileOracle(`containerd ${ctd.wantedMajor}`, () => ctd.bin, ctd.howToGet)])(`tsadm's containerd configuration read by the real ${ctd.title}`, () => {
    let dir: string;
    let n = 0;
    let major: number | undefined;

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'tsadm-containerd-'));
      // How the host phase learns the major: `containerd --version` through the host seam.
      const host = {
        root: '/',
        exec: (_cmd: string, args: readonly string[]) => {
          const r = spawnSync(ctd.bin, args, { encoding: 'utf8', timeout: 10_000 });
          return Promise.resolve({ exitCode: r.status ?? 1, stdout: r.stdout, stderr: r.stderr });
        },
      } as unknown as Host;
      major = await runningSystem(host, realSystem).containerdMajor();
    });

    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    /** planContainerd's files in a fresh dir, then containerd's merged configuration. */
    function dumpOf(input: Omit<ContainerdInput, 'containerdMajor' | 'sandboxImage' | 'override'>): { dump: Table; plan: ReturnType<typeof planContainerd> } {
      const plan = planContainerd({ ...input, containerdMajor: major, sandboxImage: PAUSE, override: false });
      const d = path.join(dir, String(n++));
      mkdirSync(path.join(d, 'conf.d'), { recursive: true });
      if (plan.kind === 'conflict') throw new Error(`unexpected conflict: ${plan.detail}`);
      const configToml = plan.kind === 'drop-in' && plan.configToml !== undefined ? plan.configToml : input.configToml ?? '';
      expect(configToml).toContain(`"${DROPIN_DIR}/*.toml"`);
      writeFileSync(path.join(d, 'config.toml'), configToml.replaceAll(`"${DROPIN_DIR}/*.toml"`, `"${path.join(d, 'conf.d')}/*.toml"`));
      if (plan.kind === 'drop-in') writeFileSync(path.join(d, 'conf.d', path.posix.basename(CONTAINERD_DROPIN)), plan.dropIn);
      const out = execFileSync(ctd.bin, ['--config', path.join(d, 'config.toml'), 'config', 'dump'], { encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'] });
      return { dump: parseToml(out), plan };
    }

    test('the host phase reads its major version from `containerd --version`', () => {
      expect(major).toBe(ctd.wantedMajor);
    });

    test('no config.toml (a fresh host): tsadm\'s import-only config.toml and drop-in; the runc entry keeps containerd\'s defaults', () => {
      const { dump, plan } = dumpOf({ configToml: undefined, systemdCgroup: true });
      expect(plan.kind).toBe('drop-in');
      // Schema version 3 for containerd 2, 2 for containerd 1.
      expect(dump.version).toBe(ctd.wantedMajor >= 2 ? 3 : 2);
      const e = effective(dump);
      expect(e).toMatchObject({ sandbox: PAUSE, runtimeType: 'io.containerd.runc.v2', systemdCgroup: true });
      // containerd 2's pod sandboxes need the runc entry's sandboxer (its default survives the drop-in).
      if (ctd.wantedMajor >= 2) expect(e.sandboxer).toBe('podsandbox');
    });

    test('Debian\'s own config.toml (the package\'s conffile): the import added, tsadm\'s values set, the package\'s CNI directory kept', () => {
      const packaged = readFileSync(ctd.packagedConfig, 'utf8');
      // The package's file, as Debian ships it (the host's may only be the package's: checked by dpkg elsewhere).
      expect(packaged).toContain('bin_dir = "/usr/lib/cni"');
      const { dump, plan } = dumpOf({ configToml: packaged, systemdCgroup: true, packaged: true });
      expect(plan.kind === 'drop-in' && plan.backup).toBe(true);
      expect(effective(dump)).toMatchObject({ sandbox: PAUSE, runtimeType: 'io.containerd.runc.v2', systemdCgroup: true, cniBinDirs: ['/usr/lib/cni'] });
    });

    test('a config.toml of the installed containerd\'s schema that imports the drop-in and sets its own CRI values: tsadm\'s win, the others stay', () => {
      const own = ctd.wantedMajor >= 2
        ? ['version = 3', `imports = ["${DROPIN_DIR}/*.toml"]`, '', '[plugins."io.containerd.cri.v1.images".pinned_images]', '  sandbox = "example.org/pause:9"', '',
          '[plugins."io.containerd.cri.v1.runtime"]', '  restrict_oom_score_adj = true', '',
          '[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]', '  BinaryName = "/usr/local/sbin/runc"', '  SystemdCgroup = false', '']
        : ['version = 2', `imports = ["${DROPIN_DIR}/*.toml"]`, '', '[plugins."io.containerd.grpc.v1.cri"]', '  sandbox_image = "example.org/pause:9"', '  restrict_oom_score_adj = true', '',
          '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]', '  BinaryName = "/usr/local/sbin/runc"', '  SystemdCgroup = false', ''];
      const { dump } = dumpOf({ configToml: own.join('\n'), systemdCgroup: true });
      expect(effective(dump)).toMatchObject({
        sandbox: PAUSE, runtimeType: 'io.containerd.runc.v2', systemdCgroup: true,
        restrictOom: true, binaryName: '/usr/local/sbin/runc',
      });
    });

    test('cgroupfs (SystemdCgroup = false) is written and read as such', () => {
      const { dump } = dumpOf({ configToml: undefined, systemdCgroup: false });
      expect(effective(dump)).toMatchObject({ sandbox: PAUSE, systemdCgroup: false });
    });
  });
}
