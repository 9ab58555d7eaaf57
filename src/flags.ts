/**
 * One registry of every flag tsadm accepts, with kubeadm's names. Phases declare the flags they
 * read by name (a typo fails to compile); workflow commands get exactly the union of their phases'
 * flags, and every other command takes its flags from here by name too (`addFlags` in
 * src/cli/yargs-kit.ts; test/unit/flags.test.ts fails on a flag declared anywhere else).
 * Workflow flags give yargs no defaults: the config loader must know which flags the user set
 * (kubeadm's rules on mixing --config with flags), and applies kubeadm's defaults itself.
 *
 * A flag whose help says something else on some command (kubeadm's own `token --dry-run` is
 * "Whether to enable dry-run mode or not", its init's is "Don't apply any changes…") has its
 * other wordings as `variants` of its one entry, taken as `'<flag>@<variant>'`: the type stays
 * the flag's, the variant's fields replace the entry's (undefined removes one).
 */
export interface FlagSpec {
  readonly type: 'string' | 'boolean' | 'number' | 'array';
  readonly describe: string;
  /** Shown in help only. */
  readonly defaultDescription?: string | undefined;
  /** One short letter, or an older spelling accepted but left out of help. */
  readonly alias?: string | undefined;
  /** Every other spelling, listed in help as yargs lists aliases (kubeadm 1.20's --experimental-output beside -o). */
  readonly aliases?: readonly string[];
  readonly hidden?: boolean;
  /** The value yargs gives when the flag is absent (day-two commands only; shown in help). */
  readonly default?: string | number | boolean;
  readonly choices?: readonly string[];
  readonly demandOption?: boolean;
  /** A string or number flag needs a value unless this is false. */
  readonly requiresArg?: boolean;
}

type FlagVariant = Partial<Omit<FlagSpec, 'type'>>;

/** Paths the day-two flags name in their help. */
const ADMIN_KUBECONFIG = '/etc/kubernetes/admin.conf';
const CERT_DIR = '/etc/kubernetes/pki';
/** src/etcd-snapshot/names.ts's DEFAULT_SNAPSHOT_DIR (a layer above this one; test/unit/flags.test.ts keeps them equal). */
const SNAPSHOT_DIR = '/var/lib/tsadm/etcd-snapshots';
const TSADM_PATH = 'The tsadm executable the systemd unit\'s ExecStart= runs as root. It, and every directory above it, must be owned by root and writable by no one else (the Debian package\'s /usr/bin/tsadm is); a script ("#!", a checkout\'s bin/tsadm) runs with this tsadm\'s Node.js, which is checked the same way.';

export const FLAGS = {
  // --- shared by most commands
  config: {
    type: 'string', describe: 'Path to a kubeadm configuration file (multi-document YAML).',
    variants: {
      token: { describe: 'Path to a kubeadm configuration file: the tokens of its InitConfiguration bootstrapTokens are created (the first is printed).' },
      certs: { describe: 'Path to a kubeadm configuration file (InitConfiguration/ClusterConfiguration).' },
      images: { describe: 'Path to a tsadm (kubeadm) configuration file.' },
      validate: { describe: 'Path to a kubeadm configuration file.' },
    },
  },
  'dry-run': {
    type: 'boolean', describe: "Don't apply any changes; just output what would be done.",
    variants: {
      token: { describe: 'Whether to enable dry-run mode or not' },
      'token-generate': { describe: 'Whether to enable dry-run mode or not. generate writes nothing: accepted, as kubeadm does, and unused.' },
      certs: { describe: "Don't write anything; show what would be written." },
      'remove-member': { describe: 'Say what would be removed; change nothing' },
      'rotate-ca-node': { describe: "Don't change anything; show what would be written and restarted." },
      snapshot: { describe: 'Print what would happen; change nothing' },
      approve: { describe: 'Say what would be approved or denied; change nothing.' },
    },
  },
  // kubeadm's wording begins each ("[EXPERIMENTAL] The path to the 'real' host root filesystem.", its
  // options.AddKubeadmOtherFlags); what follows says what tsadm does with it instead of a chroot.
  rootfs: {
    type: 'string', describe: "The path to the 'real' host root filesystem: every host path tsadm reads or writes resolves under it (no chroot).",
    variants: {
      // A command that reads and writes no host file: kubeadm's chroot changes nothing it does.
      unused: { describe: "The path to the 'real' host root filesystem. kubeadm chroots into it before every command; this command reads and writes no host file, so the path is only checked to be a directory." },
      config: { describe: "The path to the 'real' host root filesystem. \"images pull\" finds and reaches the CRI socket under it; the config files (--config, --old-config, --new-config) are read and written on the real filesystem, as everywhere in tsadm, so the other config commands only check it is a directory." },
    },
  },
  v: {
    type: 'number', describe: 'Log level verbosity (0: phases, 1: decisions and files, 2: commands and API calls).', defaultDescription: '0',
    variants: { short: { describe: 'Log level verbosity.', defaultDescription: undefined }, stack: { describe: 'Log level verbosity (from 2, a failure also prints its stack).' } },
  },
  output: {
    type: 'string', alias: 'o', describe: 'Output format: "text" (default) or "json" (one JSON event per line, see /usr/share/doc/tsadm/docs/events.md).', defaultDescription: 'text',
    variants: {
      // The event stream's text|json on the day-two commands.
      events: { describe: 'Output format: text or json (NDJSON events, /usr/share/doc/tsadm/docs/events.md).', defaultDescription: undefined },
      renew: { describe: 'Output format: text, or json (one event per line, /usr/share/doc/tsadm/docs/events.md).', default: 'text', defaultDescription: undefined },
      'rotate-ca': { describe: 'Output format: text, or json (one event per line, /usr/share/doc/tsadm/docs/events.md).', defaultDescription: undefined },
      'rotate-ca-status': { describe: 'Output format: text, or json (the report as one object: phase, nodes, next, abort, exitCode).', choices: ['text', 'json'], defaultDescription: undefined },
      etcd: { describe: 'Output format: text, or json (one event per line, the result last)', choices: ['text', 'json'], default: 'text', requiresArg: false, defaultDescription: undefined },
      // kubeadm's printers (its PrintFlags): a document or table, not events.
      'check-expiration': { describe: 'Output format: table (or text), json, yaml, kyaml (/usr/share/doc/tsadm/docs/certs.md); kubeadm\'s template formats are refused.', default: 'table', defaultDescription: undefined },
      'upgrade-plan': { describe: 'Output format: text, or one json/yaml/kyaml UpgradePlan document (output.kubeadm.k8s.io/v1alpha3); kubeadm\'s template formats are refused.' },
      // token list's and config images list's (src/commands/images.ts's IMAGES_OUTPUTS).
      printers: { describe: "Output format. One of: text|json|yaml|kyaml (kubeadm's template formats are refused).", alias: undefined, aliases: ['o', 'experimental-output'], default: 'text', defaultDescription: undefined },
      version: { describe: "Output format; available options are 'yaml', 'json' and 'short'", defaultDescription: undefined },
    },
  },
  'skip-phases': { type: 'array', describe: 'List of phases to be skipped (e.g. addon/kube-proxy,certs/sa).' },
  'ignore-preflight-errors': { type: 'array', describe: 'A list of checks whose errors will be shown as warnings. Example: "IsPrivilegedUser,Swap". Value "all" ignores errors from all checks.' },
  'cri-socket': {
    type: 'string', describe: 'Path to the CRI socket to connect. If empty tsadm will try to auto-detect this value; use this option only if you have more than one CRI installed or if you have non-standard CRI socket.',
    variants: { restore: { describe: 'The container runtime socket.', defaultDescription: 'detected' } },
  },
  'node-name': {
    type: 'string', describe: 'Specify the node name.', defaultDescription: 'the lowercased hostname',
    variants: { 'rotate-ca': { describe: "This node's Node name.", defaultDescription: 'the hostname' } },
  },
  patches: { type: 'string', alias: 'experimental-patches', describe: 'Path to a directory that contains files named "target[suffix][+patchtype].extension" (e.g. "kube-apiserver0+merge.yaml"); target is one of kube-apiserver, kube-controller-manager, kube-scheduler, etcd; patchtype is strategic (default), merge or json.' },
  'feature-gates': { type: 'string', describe: 'A set of key=value pairs that describe feature gates for various features, e.g. "PublicKeysECDSA=true".' },
  kubeconfig: {
    type: 'string', describe: 'The kubeconfig file to use when talking to the cluster.', defaultDescription: ADMIN_KUBECONFIG,
    variants: {
      'token-generate': { describe: 'The kubeconfig file to use when talking to the cluster. generate talks to no cluster: accepted, as kubeadm does, and unused.' },
      config: { describe: 'The kubeconfig file to use when talking to the cluster. If the flag is not set, a set of standard locations can be searched for an existing kubeconfig file. (No tsadm config subcommand talks to a cluster: accepted, as kubeadm does, and unused.)' },
      'check-expiration': { describe: 'The kubeconfig file to read the cluster\'s ClusterConfiguration (kubeadm-config ConfigMap) through when --config is not given.' },
      renew: { describe: 'The kubeconfig file to read the cluster\'s ClusterConfiguration (kubeadm-config ConfigMap) through when --config is not given, and (--auto) to take the Lease with.' },
      'remove-member': { describe: 'The admin kubeconfig of the cluster.' },
      approve: { describe: 'The kubeconfig file to reach the cluster with.' },
      'rotate-ca': { describe: 'The kubeconfig to reach the cluster with.', defaultDescription: '/etc/kubernetes/admin.conf on a control plane, /etc/kubernetes/kubelet.conf on a worker' },
    },
  },
  'print-manifest': { type: 'boolean', describe: 'Print the addon manifests to STDOUT instead of installing them' },
  plan: { type: 'string', describe: 'Write every change to this file (0600, holds keys) for `tsadm apply`; implies --dry-run: /usr/share/doc/tsadm/docs/plan.md' },
  'plan-without-keys': { type: 'boolean', describe: 'With --plan: keys, kubeconfigs, tokens and Secret data as their sha256 (a review copy, not applied).' },

  // --- init / cluster configuration
  'apiserver-advertise-address': { type: 'string', describe: 'The IP address the API Server will advertise it\'s listening on. If not set the default network interface will be used.' },
  'apiserver-bind-port': { type: 'number', describe: 'Port for the API Server to bind to.', defaultDescription: '6443' },
  'apiserver-cert-extra-sans': { type: 'array', describe: 'Optional extra Subject Alternative Names (SANs) to use for the API Server serving certificate. Can be both IP addresses and DNS names.' },
  'cert-dir': {
    type: 'string', describe: 'The path where to save and store the certificates.', defaultDescription: CERT_DIR,
    variants: {
      certs: { describe: 'The path where the certificates are stored (wins over certificatesDir from --config).' },
      'etcd-client': { describe: 'Where the etcd CA and healthcheck-client certificate are (etcd/ under it).' },
      restore: { describe: 'Where the cluster CA and the etcd client certificates are.' },
    },
  },
  'control-plane-endpoint': { type: 'string', describe: 'Specify a stable IP address or DNS name for the control plane.' },
  'image-repository': {
    type: 'string', describe: 'Choose a container registry to pull control plane images from.', defaultDescription: 'registry.k8s.io (k8s.gcr.io for v1.20–v1.24)',
    variants: { images: { defaultDescription: undefined } },
  },
  'kubernetes-version': {
    type: 'string', describe: 'Choose a specific Kubernetes version for the control plane.', defaultDescription: 'the newest version tsadm knows',
    variants: {
      images: { defaultDescription: undefined },
      'print-defaults': { describe: 'Print defaults in the config API version kubeadm of this Kubernetes version uses.', defaultDescription: undefined },
      'print-node-defaults': { describe: 'Print defaults in the config API version kubeadm of this Kubernetes version uses (1.31 or newer).', defaultDescription: undefined },
    },
  },
  'pod-network-cidr': { type: 'string', describe: 'Specify range of IP addresses for the pod network. If set, the control plane will automatically allocate CIDRs for every node.' },
  'service-cidr': { type: 'string', describe: 'Use alternative range of IP address for service VIPs.', defaultDescription: '10.96.0.0/12' },
  'service-dns-domain': { type: 'string', describe: 'Use alternative domain for services, e.g. "myorg.internal".', defaultDescription: 'cluster.local' },
  'kubeconfig-dir': {
    type: 'string', describe: 'The path where to save the kubeconfig file.', defaultDescription: '/etc/kubernetes',
    variants: { certs: { describe: 'The path where the kubeconfig files are stored.' } },
  },
  'csr-only': { type: 'boolean', describe: 'Create CSRs for the certificates instead of signing them (external CA workflow).' },
  'csr-dir': { type: 'string', describe: 'The path to output the CSRs and private keys to.' },
  'upload-certs': { type: 'boolean', describe: 'Upload control-plane certificates to the kubeadm-certs Secret.' },
  'certificate-key': {
    type: 'string', describe: 'Key used to encrypt the control-plane certificates in the kubeadm-certs Secret (64 hex characters).',
    variants: { token: { describe: 'When used together with --print-join-command, print the full join flag needed to join the cluster as a control-plane.' } },
  },
  'skip-certificate-key-print': { type: 'boolean', describe: "Don't print the key used to encrypt the control-plane certificates." },
  'skip-token-print': { type: 'boolean', describe: 'Skip printing of the default bootstrap token generated by init.' },
  token: {
    type: 'string', describe: 'The token to use for establishing bidirectional trust between nodes and control-plane nodes. The format is [a-z0-9]{6}\\.[a-z0-9]{16} - e.g. abcdef.0123456789abcdef',
    variants: { 'kubeconfig-user': { describe: 'The token that should be used as the authentication mechanism for this kubeconfig, instead of client certificates' } },
  },
  'token-ttl': { type: 'string', describe: "The duration before the token is automatically deleted (e.g. 1s, 2m, 3h). If set to '0', the token will never expire.", defaultDescription: '24h0m0s' },
  resume: { type: 'boolean', describe: 'Continue a failed init or upgrade apply: skip the phases a previous run completed, inputs and results unchanged.' },
  'print-join-command': {
    type: 'boolean', describe: 'Print the full join command that can be used to join the cluster.',
    variants: { token: { describe: 'Instead of printing only the token, print the full tsadm join flag needed to join the cluster using the token.' } },
  },
  'upload-config-kubeconfig': { type: 'string', hidden: true, describe: 'internal' },
  'certificate-auto-renew': { type: 'boolean', describe: 'tsadm\'s own: end by installing the daily "tsadm certs renew --auto" timer (kubeadm renews only in upgrades).' },
  'tsadm-path': {
    type: 'string', describe: TSADM_PATH, defaultDescription: 'the running tsadm',
    variants: { enable: { describe: `enable: ${TSADM_PATH}` } },
  },

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
  force: {
    type: 'boolean', alias: 'f', describe: 'reset: reset the node without prompting for confirmation. upgrade apply: upgrade although some requirements (skippable version-policy errors) are not met; implies non-interactive mode.',
    variants: { 'remove-member': { describe: 'Remove the member even though it still answers (it is alive: prefer `tsadm reset` on that machine)', alias: undefined, default: false } },
  },
  'cleanup-tmp-dir': { type: 'boolean', describe: 'Cleanup the "/etc/kubernetes/tmp" directory.' },

  // --- upgrade
  yes: { type: 'boolean', alias: 'y', describe: 'Perform the upgrade and do not prompt for confirmation (non-interactive mode).' },
  'certificate-renewal': { type: 'boolean', describe: 'Perform the renewal of certificates used by component changed during upgrades (--certificate-renewal=false to keep them).', defaultDescription: 'true' },
  'etcd-upgrade': {
    type: 'boolean', describe: 'Perform the upgrade of etcd (--etcd-upgrade=false to leave etcd as it is).', defaultDescription: 'true',
    variants: { 'upgrade-plan': { describe: 'Perform the upgrade of etcd: false leaves etcd out of the plan (as with external etcd).' } },
  },
  'allow-experimental-upgrades': { type: 'boolean', describe: 'Show unstable versions of Kubernetes as an upgrade alternative and allow upgrading to an alpha/beta/release candidate versions of Kubernetes.' },
  'allow-release-candidate-upgrades': { type: 'boolean', describe: 'Show release candidate versions of Kubernetes as an upgrade alternative and allow upgrading to a release candidate versions of Kubernetes.' },
  'print-config': { type: 'boolean', describe: 'Specifies whether the configuration file that will be used in the upgrade should be printed or not.' },
  // upgrade diff (kubeadm's cmd/upgrade/diff.go names, defaults and help texts)
  'context-lines': { type: 'number', alias: 'c', describe: 'How many lines of context in the diff', defaultDescription: '3' },
  'api-server-manifest': { type: 'string', describe: 'path to API server manifest', defaultDescription: '/etc/kubernetes/manifests/kube-apiserver.yaml' },
  'controller-manager-manifest': { type: 'string', describe: 'path to controller manifest', defaultDescription: '/etc/kubernetes/manifests/kube-controller-manager.yaml' },
  'scheduler-manifest': { type: 'string', describe: 'path to scheduler manifest', defaultDescription: '/etc/kubernetes/manifests/kube-scheduler.yaml' },

  // --- token
  // kubeadm token create's own wording (no closing period), as `tsadm token create --help` shows it.
  ttl: { type: 'string', describe: "The duration before the token is automatically deleted (e.g. 1s, 2m, 3h). If set to '0', the token will never expire", defaultDescription: '24h0m0s' },
  usages: { type: 'array', describe: 'Describes the ways in which this token can be used.', defaultDescription: '[signing,authentication]' },
  groups: { type: 'array', describe: 'Extra groups that this token will authenticate as when used for authentication.', defaultDescription: '[system:bootstrappers:kubeadm:default-node-token]' },
  description: { type: 'string', describe: 'A human friendly description of how this token is used.', requiresArg: false },

  // --- kubeadm's printer flags (src/commands/output-flags.ts)
  'allow-missing-template-keys': { type: 'boolean', default: true, describe: 'If true, ignore any errors in templates when a field or map key is missing in the template. Only applies to golang and jsonpath output formats (which tsadm does not print).' },
  'show-managed-fields': { type: 'boolean', default: false, describe: 'If true, keep the managedFields when printing objects in JSON or YAML format (these objects have none).' },

  // --- certs
  // certs rotate-ca (src/commands/rotate-ca.ts; the list is src/certs-lifecycle/rotate-ca/state.ts's ROTATABLE, a layer above)
  ca: { type: 'string', default: 'all', describe: 'What to rotate: all, or a comma-separated list of cluster, front-proxy, etcd, service-account.' },
  from: { type: 'string', describe: 'Take the new CAs from this directory (an external CA) instead of making them, laid out as the certificate directory: ca.crt/ca.key, front-proxy-ca.crt/.key, etcd/ca.crt/.key, sa.key.' },
  'sa-grace': { type: 'string', default: '24h', describe: 'How long tokens signed with the old service-account key stay trusted once every API server signs with the new one (the kubelet refreshes projected tokens within 24h).' },
  'rotation-key': { type: 'string', describe: 'The rotation key start printed (control planes, during trust-both, to fetch the new keys).' },
  'rotation-key-file': {
    type: 'string', describe: 'Write the rotation key to this file (0600) instead of printing it.',
    variants: { read: { describe: 'Read the rotation key from this file.' } },
  },
  'expiring-within': { type: 'string', describe: 'Exit with status 4 when a certificate or CA expires within this duration (e.g. 720h, 30d), for monitoring.' },
  auto: { type: 'boolean', describe: 'Renew every certificate and kubeconfig of this node that expires within --within, and nothing else; restart what uses them one at a time (etcd with the API server stopped around it), under the cluster-wide Lease kube-system/tsadm-certs-renew (README: "Certificates that renew themselves").' },
  'lease-wait': { type: 'string', describe: 'With --auto: how long to keep trying for the Lease through a failing API before renewing without it (only what expires within 7 days).', defaultDescription: '2m' },
  within: {
    type: 'string', describe: 'With --auto: the window, a duration (2160h) or days (90d).', defaultDescription: '90d',
    variants: { enable: { describe: 'enable: the window the timer renews with (a duration or days).' } },
  },
  wait: { type: 'string', describe: 'With --auto: how long to wait while another control plane holds the Lease (runs started on every control plane at once take turns); 0 fails at once, naming the holder.', defaultDescription: '16m' },
  'new-key': { type: 'boolean', describe: 'Issue each certificate for a newly generated private key (kubeadm\'s behaviour) instead of keeping the existing key (not with --auto: it always keeps the key).' },
  restart: { type: 'boolean', describe: 'Restart the control-plane static pods that read the renewed certificates, one by one, each until its liveness probe passes again (on by default with --auto; --no-restart turns it off).' },
  watch: { type: 'boolean', describe: 'Keep running: look for new requests every --interval until stopped.' },
  interval: { type: 'string', default: '10s', describe: 'Time between passes with --watch (e.g. 10s, 1m).' },

  // --- kubeconfig user
  'client-name': { type: 'string', demandOption: true, describe: 'The name of user. It will be used as the CN if client certificates are created' },
  org: { type: 'array', describe: 'The organizations of the client certificate. It will be used as the O if client certificates are created' },
  'validity-period': { type: 'string', describe: 'The validity period of the client certificate (e.g. 24h).', defaultDescription: 'the cluster\'s certificate validity (8760h0m0s)' },

  // --- config
  'component-configs': { type: 'array', describe: 'A comma-separated list of component config API objects to print the default values for. Available values: [KubeletConfiguration KubeProxyConfiguration].' },
  'old-config': { type: 'string', describe: 'Path to the kubeadm config file that is using an old API version and should be converted. This flag is mandatory.' },
  'new-config': { type: 'string', describe: 'Path to the resulting equivalent kubeadm config file using the new API version. Optional, if not specified output will be sent to STDOUT.' },
  'allow-experimental-api': { type: 'boolean', describe: "Allow experimental, unreleased kubeadm API versions. tsadm reads none (kubeadm 1.37's placeholder kubeadm.k8s.io/v1 is refused), so this changes nothing; accepted for kubeadm compatibility." },
  'allow-deprecated-api': { type: 'boolean', describe: 'Do not warn about a deprecated kubeadm API version that the target Kubernetes version still reads (kubeadm 1.36+). A version it no longer reads is an error either way.' },

  // --- etcd
  'delete-node': { type: 'boolean', default: false, describe: 'Also delete the Node object' },
  dir: { type: 'string', describe: 'The snapshot directory.', defaultDescription: SNAPSHOT_DIR },
  endpoint: { type: 'string', describe: 'The etcd client URL.', defaultDescription: 'the first --listen-client-urls of /etc/kubernetes/manifests/etcd.yaml (loopback)' },
  keep: {
    type: 'number', demandOption: true, describe: 'How many of the newest snapshots to keep (at least 1)',
    variants: { schedule: { describe: 'How many snapshots to keep', demandOption: undefined, default: 5 } },
  },
  every: { type: 'string', default: '12h', describe: 'How often (a period that divides a day: 30m, 1h, 6h, 12h, 24h)' },
  'randomized-delay': { type: 'string', describe: 'systemd RandomizedDelaySec= (default: a tenth of the period, at most 15min)' },
  disable: { type: 'boolean', default: false, describe: 'Stop and remove the timer and its service' },
  timeout: { type: 'number', default: 300, describe: 'Seconds to wait for each step (containers gone, restore, control plane back)' },

  // --- klog's, on every command (src/cli/klog-flags.ts; kubeadm 1.20's "Global Flags")
  'log-file': { type: 'string', describe: 'If non-empty, also write the log to this file (appended, mode 0600).' },
  'log-file-max-size': { type: 'string', defaultDescription: '1800', describe: 'Defines the maximum size a log file can grow to. Unit is megabytes. If the value is 0, the maximum file size is unlimited.' },
  'skip-headers': { type: 'boolean', describe: 'If true, avoid header prefixes in the log messages' },
  'skip-log-headers': { type: 'boolean', describe: 'If true, avoid headers when opening log files' },
  'add-dir-header': { type: 'boolean', describe: 'If true, adds the file directory to the header of the log messages' },
  'log-file-secrets': { type: 'boolean', describe: 'tsadm\'s own: tokens and certificate keys go to --log-file unredacted' },
  'one-output': { type: 'boolean', describe: 'If true, only write logs to their native severity level' },
  // kubeadm's main keeps klog's -v and --vmodule on every command (cmd/kubeadm/app/kubeadm.go, KEP 2845).
  vmodule: { type: 'string', describe: 'comma-separated list of pattern=N settings for file-filtered logging' },
} as const satisfies Record<string, FlagSpec & { readonly variants?: Readonly<Record<string, FlagVariant>> }>;

export type FlagName = keyof typeof FLAGS;

type VariantOf<N extends FlagName> = (typeof FLAGS)[N] extends { readonly variants: infer V } ? keyof V & string : never;

/** A flag as a command takes it: its name, or `<name>@<variant>` for one of its other wordings (a typo fails to compile). */
export type FlagRef = { [N in FlagName]: N | `${N}@${VariantOf<N>}` }[FlagName];

/** The flag a reference names, and its spec with the variant's fields in place of the entry's. */
export function flagSpec(ref: FlagRef): { readonly name: FlagName; readonly spec: FlagSpec } {
  const [name, variant] = ref.split('@') as [FlagName, string | undefined];
  const { variants, ...base }: FlagSpec & { readonly variants?: Readonly<Record<string, FlagVariant>> } = FLAGS[name];
  if (variant === undefined) return { name, spec: base };
  return { name, spec: { ...base, ...variants?.[variant] } };
}

/** klog's flags, declared on the top-level command for every command (src/cli/klog-flags.ts). */
export const KLOG_FLAGS: readonly FlagName[] = ['log-file', 'log-file-max-size', 'skip-headers', 'skip-log-headers', 'add-dir-header', 'log-file-secrets', 'one-output', 'vmodule'];

/** The help heading of klog's flags, as kubeadm's. */
export const KLOG_GROUP = 'Global Flags:';

export const FLAG_NAMES: ReadonlySet<string> = new Set(Object.keys(FLAGS));

/** Values of the flags the user actually set (unset flags are absent). */
export type FlagValues = Partial<Record<FlagName, string | number | boolean | readonly string[]>>;

/** Flags every workflow command has, whatever its phases read. */
export const WORKFLOW_FLAGS: readonly FlagName[] = ['config', 'dry-run', 'rootfs', 'v', 'output', 'skip-phases', 'plan', 'plan-without-keys'];
