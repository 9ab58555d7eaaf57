/**
 * containerd's configuration decisions, on config.toml texts as containerd's packages ship them
 * and as users write them by kubeadm's docs. Schemas from containerd's docs: version 2
 * `[plugins."io.containerd.grpc.v1.cri"] sandbox_image` and `…runtimes.runc.options] SystemdCgroup`;
 * version 3 `[plugins."io.containerd.cri.v1.images".pinned_images] sandbox`.
 */
import { parse } from 'smol-toml';
import { planContainerd, renderContainerdConfig, renderContainerdDropIn, withImport } from '../../../../src/phases/host/containerd.js';

const want = { systemdCgroup: true, sandboxImage: 'registry.k8s.io/pause:3.9' };
const base = { ...want, containerdMajor: 1, override: false };

test('the drop-in parses as TOML and sets both values where containerd reads them', () => {
  expect(parse(renderContainerdDropIn(want, 2))).toMatchObject({ version: 2, plugins: { 'io.containerd.grpc.v1.cri': {
    sandbox_image: 'registry.k8s.io/pause:3.9', containerd: { runtimes: { runc: { runtime_type: 'io.containerd.runc.v2', options: { SystemdCgroup: true } } } },
  } } });
  expect(parse(renderContainerdDropIn(want, 3))).toMatchObject({ version: 3, plugins: {
    'io.containerd.cri.v1.images': { pinned_images: { sandbox: 'registry.k8s.io/pause:3.9' } },
    'io.containerd.cri.v1.runtime': { containerd: { runtimes: { runc: { runtime_type: 'io.containerd.runc.v2', options: { SystemdCgroup: true } } } } },
  } });
  expect(parse(renderContainerdConfig(3))).toEqual({ version: 3, imports: ['/etc/containerd/conf.d/*.toml'] });
});

test('no config.toml: an import-only one and the drop-in, in the installed containerd\'s schema', () => {
  const p = planContainerd({ ...base, configToml: undefined, containerdMajor: 2 });
  expect(p.kind === 'drop-in' && p.configToml).toContain('version = 3');
});

test('a config.toml that already sets both values (kubeadm docs by hand) is in place', () => {
  const text = 'version = 2\n[plugins."io.containerd.grpc.v1.cri"]\n  sandbox_image = "registry.k8s.io/pause:3.9"\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n  SystemdCgroup = true\n';
  expect(planContainerd({ ...base, configToml: text }).kind).toBe('in-place');
});

test('importing conf.d: the drop-in only; with containerd 1.x and a CRI section of its own, the drop-in carries that section (#5837)', () => {
  const imports = 'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n';
  const p = planContainerd({ ...base, configToml: imports });
  expect(p.kind).toBe('drop-in');
  expect(p.kind === 'drop-in' && p.configToml).toBeUndefined();
  const withCri = `${imports}[plugins."io.containerd.grpc.v1.cri".registry]\n  config_path = "/etc/containerd/certs.d"\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "crun"\n`;
  const merged = planContainerd({ ...base, configToml: withCri });
  expect(merged.kind).toBe('drop-in');
  // 1.x replaces the whole plugin section with the imported one: the user's settings come along, the two values set.
  expect(parse(merged.kind === 'drop-in' ? merged.dropIn : '')).toEqual({ version: 2, plugins: { 'io.containerd.grpc.v1.cri': {
    registry: { config_path: '/etc/containerd/certs.d' },
    sandbox_image: 'registry.k8s.io/pause:3.9',
    containerd: { default_runtime_name: 'crun', runtimes: { crun: { options: { SystemdCgroup: true } } } },
  } } });
  // The runc entry replaces containerd's default one as a whole, so it names its shim again ("container.Runtime.Name must be set" otherwise).
  const runc = planContainerd({ ...base, configToml: `${imports}[plugins."io.containerd.grpc.v1.cri".cni]\n  bin_dir = "/usr/lib/cni"\n` });
  expect(parse(runc.kind === 'drop-in' ? runc.dropIn : '')).toEqual({ version: 2, plugins: { 'io.containerd.grpc.v1.cri': {
    cni: { bin_dir: '/usr/lib/cni' },
    sandbox_image: 'registry.k8s.io/pause:3.9',
    containerd: { runtimes: { runc: { runtime_type: 'io.containerd.runc.v2', options: { SystemdCgroup: true } } } },
  } } });
    // containerd 2.x merges sections: only the two values.
  const v2 = planContainerd({ ...base, configToml: withCri, containerdMajor: 2 });
  expect(v2.kind === 'drop-in' && v2.dropIn).toBe(renderContainerdDropIn(want, 2));
  // A version 1 config with a CRI section: reported (tsadm writes version 2 drop-ins only).
  expect(planContainerd({ ...base, configToml: 'imports = ["/etc/containerd/conf.d/*.toml"]\n[plugins.cri]\n  x = 1\n' }).kind).toBe('conflict');
});

test('withImport adds one line and changes nothing else; an existing imports list gets the directory', () => {
  expect(withImport('# c\nversion = 2\n[plugins]\n')).toBe('# c\nversion = 2\n# imports: added by tsadm (host/container-runtime); the file as found is config.toml.tsadm-orig\nimports = ["/etc/containerd/conf.d/*.toml"]\n[plugins]\n');
  expect(withImport('[plugins]\n')).toMatch(/^# imports: added by tsadm.*\nimports = \["\/etc\/containerd\/conf.d\/\*.toml"\]\n\[plugins\]\n$/);
  expect(withImport('version = 2\nimports = ["/etc/x.toml"]\n')).toBe('version = 2\nimports = ["/etc/containerd/conf.d/*.toml", "/etc/x.toml"]\n');
  expect(withImport('version = 2\nimports = []\n')).toBe('version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n');
  expect(withImport('version = 2\nimports = [\n  "/etc/x.toml",\n]\n')).toBe('version = 2\nimports = ["/etc/containerd/conf.d/*.toml",\n  "/etc/x.toml",\n]\n');
  // Text tsadm cannot edit into a file that imports the directory.
  expect(withImport('version = 2\nimports = "/etc/x.toml"\n')).toBeUndefined();
});

test('the package\'s unmodified file without the import gets it added; the administrator\'s is a conflict', () => {
  const text = 'version = 2\n';
  const packaged = planContainerd({ ...base, configToml: text, packaged: true });
  expect(packaged).toMatchObject({ kind: 'drop-in', backup: true });
  expect(packaged.kind === 'drop-in' && packaged.configToml).toContain('imports = ["/etc/containerd/conf.d/*.toml"]');
  const mine = planContainerd({ ...base, configToml: text });
  expect(mine.kind === 'conflict' && mine.detail).toMatch(/does not import/);
});

test('no imports and other values, or CRI disabled: a conflict; with override, replaced and kept aside', () => {
  expect(planContainerd({ ...base, configToml: 'version = 2\n' })).toMatchObject({ kind: 'conflict' });
  const p = planContainerd({ ...base, configToml: 'disabled_plugins = ["cri"]\n', override: true });
  expect(p).toMatchObject({ kind: 'drop-in', backup: true });
  expect(planContainerd({ ...base, configToml: 'not = [toml' }).kind).toBe('conflict');
});
