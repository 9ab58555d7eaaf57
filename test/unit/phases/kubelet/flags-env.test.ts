import { renderKubeletFlagsEnv } from '../../../../src/phases/kubelet/flags-env.js';
import { goQuote } from '../../../../src/phases/kubelet/go-quote.js';
import { VERSION_TABLE, type SupportedMinor } from '../../../../src/versions/table.js';
import { fixtureInitConfig } from '../../../helpers/config-fixture.js';
import { kubeletScenario } from '../../../helpers/kubelet-scenario.js';
import { golden } from '../../controlplane/scenarios.js';

/** The machine kubeadm ran on to make the fixtures was called "vm". */
const HOSTNAME = 'vm';

describe('kubeadm-flags.env (golden, kubeadm v1.20.2)', () => {
  test('containerd socket, node name ≠ hostname, kubeletExtraArgs override', () => {
    const { cfg } = kubeletScenario();
    const env = renderKubeletFlagsEnv({ nodeRegistration: cfg.init.nodeRegistration, hostname: HOSTNAME, pauseImage: 'registry.local/k8s/pause:3.2', registerTaints: false }, VERSION_TABLE['1.20']);
    expect(env).toBe(golden('kubelet', 'kubeadm-flags.env'));
  });

  test('defaults', () => {
    const cfg = fixtureInitConfig();
    const env = renderKubeletFlagsEnv({ nodeRegistration: cfg.init.nodeRegistration, hostname: HOSTNAME, pauseImage: 'k8s.gcr.io/pause:3.2', registerTaints: false }, VERSION_TABLE['1.20']);
    expect(env).toBe(golden('kubelet-default', 'kubeadm-flags.env'));
  });

  test('dockershim: CNI and the pause image; node name = hostname gives no --hostname-override', () => {
    const base = fixtureInitConfig();
    const nodeRegistration = { ...base.init.nodeRegistration, name: 'vm', criSocket: '/var/run/dockershim.sock' };
    const env = renderKubeletFlagsEnv({ nodeRegistration, hostname: HOSTNAME, pauseImage: 'k8s.gcr.io/pause:3.2', registerTaints: false }, VERSION_TABLE['1.20']);
    expect(env).toBe(golden('kubelet-docker', 'kubeadm-flags.env'));
  });
});

describe('kubeadm-flags.env per version', () => {
  const nr = { ...fixtureInitConfig().init.nodeRegistration, criSocket: '/run/containerd/containerd.sock' };
  const render = (minor: SupportedMinor, extra: Partial<Parameters<typeof renderKubeletFlagsEnv>[0]> = {}): string =>
    renderKubeletFlagsEnv({ nodeRegistration: nr, hostname: 'cp1', pauseImage: `registry.k8s.io/pause:${VERSION_TABLE[minor].images.pauseTag}`, registerTaints: false, ...extra }, VERSION_TABLE[minor]);

  test('1.23 still says --container-runtime=remote; 1.24+ gives a unix:// endpoint and always the pause image', () => {
    expect(render('1.23')).toBe('KUBELET_KUBEADM_ARGS="--container-runtime=remote --container-runtime-endpoint=/run/containerd/containerd.sock"\n');
    expect(render('1.24')).toBe('KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.7"\n');
    expect(render('1.34')).toBe('KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.10.1"\n');
  });

  test('taints as --register-with-taints when asked (joining workers)', () => {
    const withTaints = { ...nr, taints: [{ key: 'a', value: 'b', effect: 'NoSchedule' as const }, { key: 'c', effect: 'NoExecute' as const }] };
    expect(render('1.31', { nodeRegistration: withTaints, registerTaints: true })).toContain('--register-with-taints=a=b:NoSchedule,c:NoExecute');
    expect(render('1.31', { nodeRegistration: withTaints })).not.toContain('register-with-taints');
  });

  test('values are quoted like Go\'s %q', () => {
    expect(goQuote('a "b" \\ c\td\u0001é😀\u2028')).toBe('"a \\"b\\" \\\\ c\\td\\x01é😀\\u2028"');
  });
});
