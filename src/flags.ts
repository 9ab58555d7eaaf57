/**
 * One registry of every flag tsadm accepts, with kubeadm's names. Phases declare the flags they
 * read by name (a typo fails to compile); commands get exactly the union of their phases' flags.
 * Defaults are not given to yargs: the config loader must know which flags the user set
 * (kubeadm's rules on mixing --config with flags), and applies kubeadm's defaults itself.
 */
export interface FlagSpec {
  readonly type: 'string' | 'boolean' | 'number' | 'array';
  readonly describe: string;
  /** Shown in help only. */
  readonly defaultDescription?: string;
  readonly alias?: string;
  readonly hidden?: boolean;
}

export const FLAGS = {
  // --- shared by most commands
  config: { type: 'string', describe: 'Path to a kubeadm configuration file (multi-document YAML).' },
  'dry-run': { type: 'boolean', describe: "Don't apply any changes; just output what would be done." },
  rootfs: { type: 'string', describe: 'Path to the real host root filesystem: every host path tsadm reads or writes resolves under it (no chroot).' },
  v: { type: 'number', describe: 'Log level verbosity (0: phases, 1: decisions and files, 2: commands and API calls).', defaultDescription: '0' },
  output: { type: 'string', alias: 'o', describe: 'Output format: "text" (default) or "json" (one JSON event per line, see /usr/share/doc/tsadm/docs/events.md).', defaultDescription: 'text' },
  'skip-phases': { type: 'array', describe: 'List of phases to be skipped (e.g. addon/kube-proxy,certs/sa).' },
  'ignore-preflight-errors': { type: 'array', describe: 'A list of checks whose errors will be shown as warnings. Example: "IsPrivilegedUser,Swap". Value "all" ignores errors from all checks.' },
  'cri-socket': { type: 'string', describe: 'Path to the CRI socket to connect. If empty tsadm will try to auto-detect this value; use this option only if you have more than one CRI installed or if you have non-standard CRI socket.' },
  'node-name': { type: 'string', describe: 'Specify the node name.', defaultDescription: 'the lowercased hostname' },
  patches: { type: 'string', alias: 'experimental-patches', describe: 'Path to a directory that contains files named "target[suffix][+patchtype].extension" (e.g. "kube-apiserver0+merge.yaml"); target is one of kube-apiserver, kube-controller-manager, kube-scheduler, etcd; patchtype is strategic (default), merge or json.' },
  'feature-gates': { type: 'string', describe: 'A set of key=value pairs that describe feature gates for various features, e.g. "PublicKeysECDSA=true".' },
  kubeconfig: { type: 'string', describe: 'The kubeconfig file to use when talking to the cluster.', defaultDescription: '/etc/kubernetes/admin.conf' },
  'print-manifest': { type: 'boolean', describe: 'Print the addon manifests to STDOUT instead of installing them' },
  plan: { type: 'string', describe: 'Write every change to this file (0600, holds keys) for `tsadm apply`; implies --dry-run: /usr/share/doc/tsadm/docs/plan.md' },
  'plan-without-keys': { type: 'boolean', describe: 'With --plan: keys, kubeconfigs, tokens and Secret data as their sha256 (a review copy, not applied).' },

  // --- init / cluster configuration
  'apiserver-advertise-address': { type: 'string', describe: 'The IP address the API Server will advertise it\'s listening on. If not set the default network interface will be used.' },
  'apiserver-bind-port': { type: 'number', describe: 'Port for the API Server to bind to.', defaultDescription: '6443' },
  'apiserver-cert-extra-sans': { type: 'array', describe: 'Optional extra Subject Alternative Names (SANs) to use for the API Server serving certificate. Can be both IP addresses and DNS names.' },
  'cert-dir': { type: 'string', describe: 'The path where to save and store the certificates.', defaultDescription: '/etc/kubernetes/pki' },
  'control-plane-endpoint': { type: 'string', describe: 'Specify a stable IP address or DNS name for the control plane.' },
  'image-repository': { type: 'string', describe: 'Choose a container registry to pull control plane images from.', defaultDescription: 'registry.k8s.io (k8s.gcr.io for v1.20–v1.24)' },
  'kubernetes-version': { type: 'string', describe: 'Choose a specific Kubernetes version for the control plane.', defaultDescription: 'the newest version tsadm knows' },
  'pod-network-cidr': { type: 'string', describe: 'Specify range of IP addresses for the pod network. If set, the control plane will automatically allocate CIDRs for every node.' },
  'service-cidr': { type: 'string', describe: 'Use alternative range of IP address for service VIPs.', defaultDescription: '10.96.0.0/12' },
  'service-dns-domain': { type: 'string', describe: 'Use alternative domain for services, e.g. "myorg.internal".', defaultDescription: 'cluster.local' },
  'kubeconfig-dir': { type: 'string', describe: 'The path where to save the kubeconfig file.', defaultDescription: '/etc/kubernetes' },
  'csr-only': { type: 'boolean', describe: 'Create CSRs for the certificates instead of signing them (external CA workflow).' },
  'csr-dir': { type: 'string', describe: 'The path to output the CSRs and private keys to.' },
  'upload-certs': { type: 'boolean', describe: 'Upload control-plane certificates to the kubeadm-certs Secret.' },
  'certificate-key': { type: 'string', describe: 'Key used to encrypt the control-plane certificates in the kubeadm-certs Secret (64 hex characters).' },
  'skip-certificate-key-print': { type: 'boolean', describe: "Don't print the key used to encrypt the control-plane certificates." },
  'skip-token-print': { type: 'boolean', describe: 'Skip printing of the default bootstrap token generated by init.' },
  token: { type: 'string', describe: 'The token to use for establishing bidirectional trust between nodes and control-plane nodes. The format is [a-z0-9]{6}\\.[a-z0-9]{16} - e.g. abcdef.0123456789abcdef' },
  'token-ttl': { type: 'string', describe: "The duration before the token is automatically deleted (e.g. 1s, 2m, 3h). If set to '0', the token will never expire.", defaultDescription: '24h0m0s' },
  resume: { type: 'boolean', describe: 'Continue a failed init or upgrade apply: skip the phases a previous run completed, inputs and results unchanged.' },
  'print-join-command': { type: 'boolean', describe: 'Print the full join command that can be used to join the cluster.' },
  'upload-config-kubeconfig': { type: 'string', hidden: true, describe: 'internal' },
  'certificate-auto-renew': { type: 'boolean', describe: 'tsadm\'s own: end by installing the daily "tsadm certs renew --auto" timer (kubeadm renews only in upgrades).' },
  'tsadm-path': { type: 'string', describe: 'The tsadm executable the systemd unit\'s ExecStart= runs as root. It, and every directory above it, must be owned by root and writable by no one else (the Debian package\'s /usr/bin/tsadm is); a script ("#!", a checkout\'s bin/tsadm) runs with this tsadm\'s Node.js, which is checked the same way.', defaultDescription: 'the running tsadm' },

  // --- host preparation (src/phases/host, docs/host.md)
  'prepare-host': { type: 'boolean', describe: 'Run the host phase first: modules, sysctls, swap, containerd, the kubelet unit (`tsadm prepare` runs it alone).' },
  bundle: { type: 'string', describe: 'host phase: install kubelet, kubectl (and crictl when present) from this local directory into /usr/bin, each verified against SHA256SUMS or <name>.sha256 there and its version checked; tsadm never downloads.' },
  'swap-off': { type: 'boolean', describe: 'host phase: turn swap off now (swapoff -a) when the kubelet requires it; /etc/fstab is not edited.' },
  'restart-container-runtime': { type: 'boolean', describe: 'host phase: restart a running containerd after its configuration changed (without it, tsadm only says a restart is needed).' },
  'override-host-settings': { type: 'boolean', describe: 'host phase: apply tsadm\'s settings over a conflicting file of your own (kept as is, or copied aside for containerd\'s config.toml) instead of stopping.' },

  // --- join
  'control-plane': { type: 'boolean', describe: 'Create a new control plane instance on this node.' },
  'discovery-file': { type: 'string', describe: 'For file-based discovery, a file or URL from which to load cluster information.' },
  'discovery-token': { type: 'string', describe: 'For token-based discovery, the token used to validate cluster information fetched from the API server.' },
  'discovery-token-ca-cert-hash': { type: 'array', describe: 'For token-based discovery, validate that the root CA public key matches this hash (format: "sha256:<hex>").' },
  'discovery-token-unsafe-skip-ca-verification': { type: 'boolean', describe: 'For token-based discovery, allow joining without --discovery-token-ca-cert-hash pinning.' },
  'tls-bootstrap-token': { type: 'string', describe: 'Specify the token used to temporarily authenticate with the Kubernetes Control Plane while joining the node.' },

  // --- reset
  force: { type: 'boolean', alias: 'f', describe: 'reset: reset the node without prompting for confirmation. upgrade apply: upgrade although some requirements (skippable version-policy errors) are not met; implies non-interactive mode.' },
  'cleanup-tmp-dir': { type: 'boolean', describe: 'Cleanup the "/etc/kubernetes/tmp" directory.' },

  // --- upgrade
  yes: { type: 'boolean', alias: 'y', describe: 'Perform the upgrade and do not prompt for confirmation (non-interactive mode).' },
  'certificate-renewal': { type: 'boolean', describe: 'Perform the renewal of certificates used by component changed during upgrades (--certificate-renewal=false to keep them).', defaultDescription: 'true' },
  'etcd-upgrade': { type: 'boolean', describe: 'Perform the upgrade of etcd (--etcd-upgrade=false to leave etcd as it is).', defaultDescription: 'true' },
  'allow-experimental-upgrades': { type: 'boolean', describe: 'Show unstable versions of Kubernetes as an upgrade alternative and allow upgrading to an alpha/beta/release candidate versions of Kubernetes.' },
  'allow-release-candidate-upgrades': { type: 'boolean', describe: 'Show release candidate versions of Kubernetes as an upgrade alternative and allow upgrading to a release candidate versions of Kubernetes.' },
  'print-config': { type: 'boolean', describe: 'Specifies whether the configuration file that will be used in the upgrade should be printed or not.' },
  // upgrade diff (kubeadm's cmd/upgrade/diff.go names, defaults and help texts)
  'context-lines': { type: 'number', alias: 'c', describe: 'How many lines of context in the diff', defaultDescription: '3' },
  'api-server-manifest': { type: 'string', describe: 'path to API server manifest', defaultDescription: '/etc/kubernetes/manifests/kube-apiserver.yaml' },
  'controller-manager-manifest': { type: 'string', describe: 'path to controller manifest', defaultDescription: '/etc/kubernetes/manifests/kube-controller-manager.yaml' },
  'scheduler-manifest': { type: 'string', describe: 'path to scheduler manifest', defaultDescription: '/etc/kubernetes/manifests/kube-scheduler.yaml' },

  // --- token
  ttl: { type: 'string', describe: "The duration before the token is automatically deleted (e.g. 1s, 2m, 3h). If set to '0', the token will never expire.", defaultDescription: '24h0m0s' },
  usages: { type: 'array', describe: 'Describes the ways in which this token can be used.', defaultDescription: '[signing,authentication]' },
  groups: { type: 'array', describe: 'Extra groups that this token will authenticate as when used for authentication.', defaultDescription: '[system:bootstrappers:kubeadm:default-node-token]' },
  description: { type: 'string', describe: 'A human friendly description of how this token is used.' },
} as const satisfies Record<string, FlagSpec>;

export type FlagName = keyof typeof FLAGS;

export const FLAG_NAMES: ReadonlySet<string> = new Set(Object.keys(FLAGS));

/** Values of the flags the user actually set (unset flags are absent). */
export type FlagValues = Partial<Record<FlagName, string | number | boolean | readonly string[]>>;

/** Flags every workflow command has, whatever its phases read. */
export const WORKFLOW_FLAGS: readonly FlagName[] = ['config', 'dry-run', 'rootfs', 'v', 'output', 'skip-phases', 'plan', 'plan-without-keys'];
