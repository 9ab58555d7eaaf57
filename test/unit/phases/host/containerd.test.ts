/**
 * containerd's configuration decisions, on config.toml texts as containerd's packages ship them
 * and as users write them by kubeadm's docs. Schemas from containerd's docs: version 2
 * `[plugins."io.containerd.grpc.v1.cri"] sandbox_image` and `…runtimes.runc.options] SystemdCgroup`;
 * version 3 `[plugins."io.containerd.cri.v1.images".pinned_images] sandbox`.
 */
import { parse } from 'smol-toml';
import { planContainerd, renderContainerdConfig, renderContainerdDropIn } from '../../../../src/phases/host/containerd.js';

const want = { systemdCgroup: true, sandboxImage: 'registry.k8s.io/pause:3.9' };
const base = { ...want, containerdMajor: 1, override: false };

test('the drop-in parses as TOML and sets both values where containerd reads them', () => {
  expect(parse(renderContainerdDropIn(want, 2))).toMatchObject({ version: 2, plugins: { 'io.containerd.grpc.v1.cri': {
    sandbox_image: 'registry.k8s.io/pause:3.9', containerd: { runtimes: { runc: { options: { SystemdCgroup: true } } } },
  } } });
  expect(parse(renderContainerdDropIn(want, 3))).toMatchObject({ version: 3, plugins: {
    'io.containerd.cri.v1.images': { pinned_images: { sandbox: 'registry.k8s.io/pause:3.9' } },
    'io.containerd.cri.v1.runtime': { containerd: { runtimes: { runc: { options: { SystemdCgroup: true } } } } },
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

test('importing conf.d: the drop-in only; with containerd 1.x and a CRI section of its own, a conflict (#5837)', () => {
  const imports = 'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n';
  const p = planContainerd({ ...base, configToml: imports });
  expect(p.kind).toBe('drop-in');
  expect(p.kind === 'drop-in' && p.configToml).toBeUndefined();
  const withCri = `${imports}[plugins."io.containerd.grpc.v1.cri".registry]\n  config_path = "/etc/containerd/certs.d"\n`;
  expect(planContainerd({ ...base, configToml: withCri }).kind).toBe('conflict');
  expect(planContainerd({ ...base, configToml: withCri, containerdMajor: 2 }).kind).toBe('drop-in');
});

test('no imports and other values, or CRI disabled: a conflict; with override, replaced and kept aside', () => {
  expect(planContainerd({ ...base, configToml: 'version = 2\n' })).toMatchObject({ kind: 'conflict' });
  const p = planContainerd({ ...base, configToml: 'disabled_plugins = ["cri"]\n', override: true });
  expect(p).toMatchObject({ kind: 'drop-in', backup: true });
  expect(planContainerd({ ...base, configToml: 'not = [toml' }).kind).toBe('conflict');
});
