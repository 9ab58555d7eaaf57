import { renderKubeletFlagsEnv, withoutKubeletFlags } from '../../../../src/phases/kubelet/flags-env.js';
import { goQuote } from '../../../../src/util/go-quote.js';
import type { SupportedMinor } from '../../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../../src/versions/table.js';
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

  test('1.23 still says --container-runtime=remote; 1.24+ gives a unix:// endpoint and always the pause image; --container-runtime=remote until 1.25 (gone in 1.26, PR #112000)', () => {
    expect(render('1.23')).toBe('KUBELET_KUBEADM_ARGS="--container-runtime=remote --container-runtime-endpoint=/run/containerd/containerd.sock"\n');
    // kubeadm v1.24.4's file, as kubernetes/kubeadm#2742 quotes it (for CRI-O): remote, endpoint, pause image.
    expect(render('1.24')).toBe('KUBELET_KUBEADM_ARGS="--container-runtime=remote --container-runtime-endpoint=unix:///run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.7"\n');
    expect(render('1.25')).toMatch(/^KUBELET_KUBEADM_ARGS="--container-runtime=remote --container-runtime-endpoint=/);
    expect(render('1.26')).toMatch(/^KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:\/\/\/run\/containerd\/containerd.sock --pod-infra-container-image=/);
    expect(render('1.34')).toBe('KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.10.1"\n');
  });

  test('1.35+ writes no --pod-infra-container-image (kubeadm PR #133778, after the kubelet dropped the flag in PR #133779)', () => {
    const pause = { pauseImage: 'registry.k8s.io/pause:3.10.1' };
    for (const minor of ['1.35', '1.36', '1.37'] as const) {
      expect(render(minor, pause)).toBe('KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock"\n');
    }
    expect(render('1.34', pause)).toContain('--pod-infra-container-image=registry.k8s.io/pause:3.10.1');
  });

  test('from 1.36 the user\'s kubeletExtraArgs follow the sorted defaults in the order written (kubeadm PR #135400: kubeadm-flags.env is built by the same ArgumentsToCommand)', () => {
    const kubeletExtraArgs = [{ name: 'v', value: '4' }, { name: 'node-ip', value: '10.0.0.1' }, { name: 'container-runtime-endpoint', value: 'unix:///run/crio/crio.sock' }];
    const nodeRegistration = { ...nr, kubeletExtraArgs };
    expect(render('1.36', { nodeRegistration })).toBe('KUBELET_KUBEADM_ARGS="--v=4 --node-ip=10.0.0.1 --container-runtime-endpoint=unix:///run/crio/crio.sock"\n');
    expect(render('1.35', { nodeRegistration, pauseImage: 'registry.k8s.io/pause:3.10.1' }))
      .toBe('KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/crio/crio.sock --node-ip=10.0.0.1 --v=4"\n');
    const withHostname = { ...nodeRegistration, name: 'node-a', kubeletExtraArgs: [{ name: 'v', value: '4' }] };
    expect(render('1.37', { nodeRegistration: withHostname })).toBe('KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --hostname-override=node-a --v=4"\n');
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

describe('withoutKubeletFlags (what upgrade to 1.35 does to an existing kubeadm-flags.env, PR #133778)', () => {
  const FLAG = 'pod-infra-container-image';

  test('the flag goes; every other flag and line keeps its bytes and order', () => {
    const before = 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --hostname-override=n1 --pod-infra-container-image=registry.k8s.io/pause:3.10 --v=2"\n';
    expect(withoutKubeletFlags(before, [FLAG])).toBe('KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --hostname-override=n1 --v=2"\n');
    const twoLines = `# a comment\n${before}OTHER=1\n`;
    expect(withoutKubeletFlags(twoLines, [FLAG])).toBe('# a comment\nKUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --hostname-override=n1 --v=2"\nOTHER=1\n');
  });

  test('the only flag: an empty quoted value remains (valid, kubeadm PR #136127)', () => {
    expect(withoutKubeletFlags('KUBELET_KUBEADM_ARGS="--pod-infra-container-image=k8s.gcr.io/pause:3.2"\n', [FLAG])).toBe('KUBELET_KUBEADM_ARGS=""\n');
  });

  test('nothing to remove: undefined (the caller writes nothing), also for an empty value and a similar flag name', () => {
    expect(withoutKubeletFlags('KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock"\n', [FLAG])).toBeUndefined();
    expect(withoutKubeletFlags('KUBELET_KUBEADM_ARGS=""\n', [FLAG])).toBeUndefined();
    expect(withoutKubeletFlags('KUBELET_KUBEADM_ARGS="--pod-infra-container-image-x=1"\n', [FLAG])).toBeUndefined();
    expect(withoutKubeletFlags('', [FLAG])).toBeUndefined();
  });

  test('idempotent: the result has nothing left to remove', () => {
    const once = withoutKubeletFlags('KUBELET_KUBEADM_ARGS="--a=1 --pod-infra-container-image=p:1"\n', [FLAG]);
    expect(once).toBe('KUBELET_KUBEADM_ARGS="--a=1"\n');
    expect(withoutKubeletFlags(once ?? '', [FLAG])).toBeUndefined();
  });
});
