/**
 * kubeadm's own tests as the oracle (issue 36): the table-driven cases of kubernetes/kubernetes
 * cmd/kubeadm/app/preflight/checks_test.go, the longest version the stored index holds (index
 * id 108067816; the index does not name its commit; it imports v1beta3 and checks IPv6
 * forwarding by IP family, PR #115420, so kubeadm 1.27 or later), compared with tsadm's checks
 * (src/phases/preflight/checks.ts) on the 1.36 row. The machine is a fake: the environment,
 * `kubelet --version` and nothing else are what the cases set, as kubeadm's test sets them
 * (resetProxyEnv: HTTP_PROXY, HTTPS_PROXY, NO_PROXY below; fakeexec for the kubelet).
 */
import type { Host } from '../../../src/host/host.js';
import type { SystemProbe } from '../../../src/host/system-probe.js';
import type { CheckResult } from '../../../src/phases/preflight/check.js';
import { httpProxyCheck, httpProxyCidrCheck, initChecks, joinChecks, kubeletVersionCheck, kubernetesVersionCheck, type PreflightInput } from '../../../src/phases/preflight/checks.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import type { VersionProfile } from '../../../src/versions/table-types.js';
import { caseKey, ledgerFile, portCases } from './support.js';

const SOURCE = 'cmd/kubeadm/app/preflight/checks_test.go';
const versions = VERSION_TABLE[ledgerFile(SOURCE).minor];

/** resetProxyEnv of kubeadm's test. */
const PROXY_ENV: Record<string, string> = {
  HTTP_PROXY: 'http://proxy.example.com:3128',
  HTTPS_PROXY: 'https://proxy.example.com:3128',
  NO_PROXY: 'example.com,10.0.0.0/8,2001:db8::/48',
};
const system = { env: (name: string) => PROXY_ENV[name] } as unknown as SystemProbe;
const noHost = {} as Host;

async function warningsOf(run: (env: { host: Host; system: SystemProbe }) => Promise<CheckResult>): Promise<boolean> {
  const result = await run({ host: noHost, system });
  expect(result.errors).toEqual([]);
  return result.warnings.length > 0;
}

const cidr = (cidrText: string, expectWarnings: boolean): [string, () => Promise<void>] =>
  [caseKey('TestHTTPProxyCIDRCheck', `[${cidrText}]`), async () => {
    const check = httpProxyCidrCheck(cidrText);
    expect(await warningsOf((env) => check.run(env))).toBe(expectWarnings);
  }];

const proxy = (name: string, host: string, expectWarnings: boolean): [string, () => Promise<void>] =>
  [caseKey('TestHTTPProxyCheck', name), async () => {
    const check = httpProxyCheck(host);
    expect(await warningsOf((env) => check.run(env))).toBe(expectWarnings);
  }];

/** KubernetesVersionCheck{KubeadmVersion: "v1.6.6"}: tsadm's "kubeadm version" is its newest minor, given here as 1.6. */
const k8sVersion = (kubernetesVersion: string, expectWarnings: boolean): [string, () => Promise<void>] =>
  [caseKey('TestKubernetesVersionCheck', `[KubeadmVersion v1.6.6, KubernetesVersion ${kubernetesVersion}]`), async () => {
    const check = kubernetesVersionCheck(kubernetesVersion, '1.6');
    expect(await warningsOf((env) => check.run(env))).toBe(expectWarnings);
  }];

/**
 * TestKubeletVersionCheck: minimumKubeletVersion v1.3.0 is injected into kubeadm's check; tsadm
 * reads it from the row (skew.minKubelet), so the row is given that value. The names are the
 * t.Run names (Go suffixes a repeated name with #01).
 */
const kubelet = (name: string, kubeletVersion: string, k8s: string, expectErrors: boolean): [string, () => Promise<void>] =>
  [caseKey('TestKubeletVersionCheck', name), async () => {
    const host = { exec: () => Promise.resolve({ exitCode: 0, stdout: `Kubernetes ${kubeletVersion}`, stderr: '' }) } as unknown as Host;
    const profile: VersionProfile = { ...versions, skew: { ...versions.skew, minKubelet: '1.3.0' } };
    const result = await kubeletVersionCheck(profile, k8s).run({ host, system });
    expect({ warnings: result.warnings.length > 0, errors: result.errors.length > 0 }).toEqual({ warnings: false, errors: expectErrors });
  }];

const IPV4 = 'FileContent--proc-sys-net-ipv4-ip_forward';
const IPV6 = 'FileContent--proc-sys-net-ipv6-conf-default-forwarding';
const forwardingChecks = (names: readonly string[]): string[] => names.filter((n) => n === IPV4 || n === IPV6);

const input = (fields: Partial<PreflightInput>): PreflightInput => ({
  versions, kubernetesVersion: 'v1.36.0', criSocket: 'unix:///run/containerd/containerd.sock', nodeName: 'node', bindPort: 6443, swapAllowed: false, ...fields,
});

const initIp = (name: string, podSubnet: string, serviceSubnet: string, expStr: string[]): [string, () => void] =>
  [caseKey('TestInitIPCheck', name), () => {
    // AdvertiseAddress is empty in kubeadm's case (auto-detected).
    expect(forwardingChecks(initChecks(input({ podSubnet, serviceSubnet })).map((c) => c.name))).toEqual(expStr);
  }];

/** kubeadm's case defaults a JoinConfiguration with bootstrap-token discovery, then sets its APIServerEndpoint. */
const joinIp = (name: string, discoveryEndpoint: string, expStr: string[]): [string, () => void] =>
  [caseKey('TestJoinIPCheck', name), () => {
    expect(forwardingChecks(joinChecks({ ...input({ discoveryEndpoint }), controlPlane: false }).map((c) => c.name))).toEqual(expStr);
  }];

portCases(SOURCE, Object.fromEntries([
  cidr('127.0.0.0/8', false),
  cidr('10.96.0.0/12', false),
  cidr('192.168.0.0/16', true),
  cidr('2001:db8::/56', false),
  cidr('2001:db8:1::/56', true),
  proxy('Loopback address', '127.0.0.1', false),
  proxy('IPv4 direct access', '10.96.0.1', false),
  proxy('IPv4 via proxy', '192.168.0.1', true),
  proxy('IPv6 direct access', '[2001:db8::1:15]', false),
  proxy('IPv6 via proxy', '[2001:db8:1::1:15]', true),
  proxy('IPv6 direct access, no brackets', '2001:db8::1:15', false),
  proxy('IPv6 via proxy, no brackets', '2001:db8:1::1:15', true),
  k8sVersion('v1.6.6', false),
  k8sVersion('v1.5.5', false),
  k8sVersion('v1.6.7', false),
  k8sVersion('v1.7.0-alpha.0', true),
  k8sVersion('v1.7.0', true),
  kubelet('v1.4.2', 'v1.4.2', '', false),
  kubelet('v1.1.0', 'v1.1.0', 'v1.11.8', true),
  kubelet('v1.3.0', 'v1.3.0', '1.3.5', false),
  kubelet('v1.3.5', 'v1.3.5', '1.3.1', false),
  kubelet('v1.3.0#01', 'v1.3.0', '1.4.1', false),
  kubelet('v1.4.0-alpha.1', 'v1.4.0-alpha.1', '1.3.1', true),
  kubelet('v1.4.0', 'v1.4.0', '1.3.5', true),
  initIp('dual stack', 'fda9:d324:354d:0::/56', '10.96.0.0/16,fda9:d324:354d:1::/112', [IPV4, IPV6]),
  initIp('single stack ipv4', '10.244.0.0/16', '10.96.0.0/16', [IPV4]),
  initIp('single stack ipv6', 'fda9:d324:354d:0::/56', 'fda9:d324:354d:1::/112', [IPV6]),
  joinIp('single stack ipv4', '10.244.0.0:1234', [IPV4]),
  joinIp('single stack ipv6', '[fda9:d324:354d:0::]:1234', [IPV6]),
]));
