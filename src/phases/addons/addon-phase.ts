import type { Phase } from '../../engine/phase.js';
import type { InitCtx } from '../../run/context.js';
import { clusterApi } from '../cluster/api.js';
import { controlPlaneEndpointFor } from '../../config/endpoint.js';
import { corednsManifests, ensureCoredns } from './coredns.js';
import { corednsDeploymentPatcher } from './coredns-patch.js';
import { clusterDnsIp } from '../../config/component-defaults.js';
import { TsadmError } from '../../errors.js';
import { corednsImage, kubeProxyImage } from './images.js';
import { ensureKubeProxy, kubeProxyManifests } from './kube-proxy.js';
import { kubeProxyDaemonSetPatcher } from './kube-proxy-patch.js';
import type { KubeObject } from '../../kube/types.js';
import { toKubeYaml } from '../../yaml/write.js';
import { kubeProxyConfiguration, proxyEnvVars } from './kube-proxy-render.js';

/**
 * addon: CoreDNS and kube-proxy, each skippable in the config (dns.disabled / proxy.disabled)
 * or with --skip-phases. Idempotent and dry-run aware through the KubeApi seam.
 */
const corednsAddonPhase: Phase<InitCtx> = {
  name: 'coredns',
  summary: 'Install the CoreDNS addon to a Kubernetes cluster',
  description: 'Install the CoreDNS addon components via the API server: its ConfigMap, RBAC rules, ServiceAccount, Deployment and the kube-dns Service. '
    + 'A Corefile edited in the cluster is kept.',
  example: '  # Installs the CoreDNS addon, functionally equivalent to what tsadm init does.\n  tsadm init phase addon coredns --config config.yaml',
  flags: ['config', 'kubeconfig', 'kubernetes-version', 'image-repository', 'feature-gates', 'service-dns-domain', 'service-cidr', 'patches', 'print-manifest'],
  skipIf: (ctx) => (ctx.cfg.cluster.dns.disabled ? 'the DNS addon is disabled in the ClusterConfiguration (dns.disabled)' : undefined),
  run: applyCoredns,
};

/** The CoreDNS addon of this configuration and version (init's phase; upgrade's addon coredns runs it at the target version). */
export async function applyCoredns(ctx: InitCtx): Promise<void> {
  const { cluster } = ctx.cfg;
  const input = {
    versions: ctx.versions,
    image: corednsImage(cluster, ctx.versions),
    dnsDomain: cluster.networking.dnsDomain,
    dnsIp: dnsIpOf(cluster.networking.serviceSubnet),
  };
  const patcher = corednsDeploymentPatcher(ctx, ctx.cfg.init.patches?.directory, ctx.versions);
  if (printManifest(ctx)) {
    printManifests(ctx, await corednsManifests(input, patcher));
    return;
  }
  await ensureCoredns(await clusterApi(ctx), input, ctx.log, patcher);
}

/** `--print-manifest` (kubeadm's addon phases): print the objects instead of applying them; no cluster is asked. */
function printManifest(ctx: InitCtx): boolean {
  return ctx.options.flags['print-manifest'] === true;
}

/**
 * The objects as YAML documents on stdout, each after a `---` line; a string is the text of one of
 * kubeadm's templates, which begins with its own newline (kubeadm prints `---` and the template).
 */
function printManifests(ctx: InitCtx, objects: ReadonlyArray<KubeObject | string>): void {
  ctx.log.output(manifestsText(objects));
}

/** The text printManifests writes (pure; kubeadm's print cases compare it byte for byte). */
export function manifestsText(objects: ReadonlyArray<KubeObject | string>): string {
  return objects.map((o) => (typeof o === 'string' ? `---${o}` : `---\n${toKubeYaml(o)}`)).join('');
}

const kubeProxyAddonPhase: Phase<InitCtx> = {
  name: 'kube-proxy',
  summary: 'Install the kube-proxy addon to a Kubernetes cluster',
  description: 'Install the kube-proxy addon components via the API server: its ServiceAccount, ConfigMap, RBAC rules and DaemonSet.',
  example: '  # Installs the kube-proxy addon, functionally equivalent to what tsadm init does.\n  tsadm init phase addon kube-proxy --config config.yaml --pod-network-cidr 10.244.0.0/16',
  flags: ['config', 'kubeconfig', 'kubernetes-version', 'image-repository', 'apiserver-advertise-address', 'control-plane-endpoint', 'apiserver-bind-port', 'pod-network-cidr', 'patches', 'print-manifest'],
  skipIf: (ctx) => (ctx.cfg.cluster.proxy.disabled ? 'the kube-proxy addon is disabled in the ClusterConfiguration (proxy.disabled)' : undefined),
  run: (ctx) => applyKubeProxy(ctx, { sign: !ctx.cfg.componentConfigs.userKubeProxy }),
};

/**
 * The kube-proxy addon of this configuration and version (init's phase; upgrade's addon
 * kube-proxy runs it at the target version). `sign`: kubeadm signs only a configuration it generated.
 */
export async function applyKubeProxy(ctx: InitCtx, opts: { readonly sign: boolean }): Promise<void> {
  const { cluster, init, componentConfigs } = ctx.cfg;
  const { config, warnings } = kubeProxyConfiguration({
    user: componentConfigs.kubeProxy,
    podSubnet: cluster.networking.podSubnet,
    advertiseAddress: init.localAPIEndpoint.advertiseAddress,
    featureGates: cluster.featureGates,
    versions: ctx.versions,
  });
  for (const w of warnings) ctx.log.warn(w, { prefix: 'addons' });
  const input = {
    config,
    server: controlPlaneEndpointFor(cluster.controlPlaneEndpoint, init.localAPIEndpoint).url,
    sign: opts.sign,
    image: kubeProxyImage(cluster, ctx.versions),
    // kube-proxy inherits the proxy settings of the shell that ran init, as with kubeadm.
    proxyEnv: proxyEnvVars(process.env),
  };
  const patcher = kubeProxyDaemonSetPatcher(ctx, ctx.cfg.init.patches?.directory, ctx.versions);
  if (printManifest(ctx)) {
    printManifests(ctx, await kubeProxyManifests(input, { omitEmptyCreationTimestamp: ctx.versions.controlPlane.omitEmptyCreationTimestamp }, patcher));
    return;
  }
  await ensureKubeProxy(await clusterApi(ctx), input, ctx.log, patcher);
}

/** kubeadm's GetDNSIP: the 10th address of the first service subnet (10.96.0.0/12 → 10.96.0.10). */
function dnsIpOf(serviceSubnet: string): string {
  const ip = clusterDnsIp(serviceSubnet);
  if (!ip) throw new TsadmError('E_CONFIG_INVALID', `couldn't parse the service subnet "${serviceSubnet}"`, { hint: 'use a CIDR such as 10.96.0.0/12' });
  return ip;
}

export const addonPhase: Phase<InitCtx> = {
  name: 'addon',
  summary: 'Install required addons for passing conformance tests',
  description: 'Install the CoreDNS and kube-proxy addons through the API server.',
  example: '  # Installs the CoreDNS and the kube-proxy addons, functionally equivalent to what tsadm init does.\n  tsadm init phase addon all --config config.yaml',
  children: [corednsAddonPhase, kubeProxyAddonPhase],
};
