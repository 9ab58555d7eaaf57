/**
 * The addon phase: CoreDNS and kube-proxy, all objects of spec §7 per minor. Created when
 * missing, updated when kubeadm's rendering differs, user-owned parts (an edited Corefile, the
 * CoreDNS replica count, ServiceAccounts) kept. Dry-run lists the writes.
 */
export { addonPhase, corednsAddonPhase, kubeProxyAddonPhase } from './addon-phase.js';
export { ensureCoredns } from './coredns.js';
export { ensureKubeProxy } from './kube-proxy.js';
