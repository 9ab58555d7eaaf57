import { checkDuration, formatDuration, parseDuration } from '../duration.js';
import { isPlainObject } from '../util/plain-object.js';
import type { SupportedMinor } from './minors.js';
import type { VersionProfile } from './table-types.js';

/**
 * The fields of kube-proxy's KubeProxyConfiguration (kubeproxy.config.k8s.io/v1alpha1) as each
 * Kubernetes release declares them, so the kube-proxy ConfigMap's `config.conf` carries the whole
 * object as kubeadm writes it. kubeadm keeps the versioned Go struct
 * (cmd/kubeadm/app/componentconfigs/kubeproxy.go), fills in its own three values and marshals it
 * with json.Marshal + JSONToYAML: every field without `omitempty` appears with its zero value
 * (kubeadm registers the types without kube-proxy's defaulting functions), structs appear even
 * when `omitempty`, keys come out sorted (tsadm's YAML writer sorts, src/yaml/write.ts).
 * test/fixtures/kubeadm-dry-run/kubeadm-1.20-addon-objects.yaml is kubeadm v1.20.2's own output.
 *
 * Sources: config/v1alpha1/types.go of k8s.io/kube-proxy (the staging copy of
 * staging/src/k8s.io/kube-proxy/config/v1alpha1/types.go) at v0.20.0 … v0.36.0 and v0.37.0-beta.0,
 * and logs/api/v1/types.go of k8s.io/component-base at the same tags (the `logging` field). The
 * types changed at these releases only; the name of a revision is the first release with it.
 */
export type KubeProxyTypesRevision = '1.20' | '1.24' | '1.26' | '1.28' | '1.29' | '1.30';

/**
 * How a Go field of the struct marshals. The zero values: string "", bool false, int/float 0,
 * pointer/slice/map null, metav1.Duration "0s", resource.QuantityValue "0". `omit` marks an
 * `omitempty` scalar, map or slice: absent unless the user set it.
 */
type Leaf = 'string' | 'bool' | 'number' | 'null' | 'duration' | 'durationPtr' | 'quantity' | 'omit';
interface Struct { readonly [field: string]: Leaf | Struct }

const ZERO: Readonly<Record<Exclude<Leaf, 'omit'>, unknown>> = {
  string: '', bool: false, number: 0, null: null, duration: '0s', durationPtr: null, quantity: '0',
};

/** v0.20.0 (also v0.21–v0.23): the fields of kubeadm v1.20.2's config.conf in the fixture above. */
const TYPES_1_20: Struct = {
  featureGates: 'omit',
  clientConnection: { kubeconfig: 'string', acceptContentTypes: 'string', contentType: 'string', qps: 'number', burst: 'number' },
  bindAddress: 'string',
  healthzBindAddress: 'string',
  metricsBindAddress: 'string',
  bindAddressHardFail: 'bool',
  enableProfiling: 'bool',
  clusterCIDR: 'string',
  hostnameOverride: 'string',
  iptables: { masqueradeBit: 'null', masqueradeAll: 'bool', syncPeriod: 'duration', minSyncPeriod: 'duration' },
  ipvs: {
    syncPeriod: 'duration', minSyncPeriod: 'duration', scheduler: 'string', excludeCIDRs: 'null', strictARP: 'bool',
    tcpTimeout: 'duration', tcpFinTimeout: 'duration', udpTimeout: 'duration',
  },
  oomScoreAdj: 'null',
  mode: 'string',
  portRange: 'string',
  udpIdleTimeout: 'duration',
  conntrack: { maxPerCore: 'null', min: 'null', tcpEstablishedTimeout: 'durationPtr', tcpCloseWaitTimeout: 'durationPtr' },
  configSyncPeriod: 'duration',
  nodePortAddresses: 'null',
  winkernel: { networkName: 'string', sourceVip: 'string', enableDSR: 'bool' },
  showHiddenMetricsForVersion: 'string',
  detectLocalMode: 'string',
};

/** v0.24.0: winkernel's rootHnsEndpointName and forwardHealthCheckVip, and detectLocal. */
const TYPES_1_24: Struct = {
  ...TYPES_1_20,
  winkernel: { ...(TYPES_1_20.winkernel as Struct), rootHnsEndpointName: 'string', forwardHealthCheckVip: 'bool' },
  detectLocal: { bridgeInterface: 'string', interfaceNamePrefix: 'string' },
};

/** v0.26.0: iptables.localhostNodePorts (*bool); udpIdleTimeout removed. */
const TYPES_1_26: Struct = (() => {
  const { udpIdleTimeout: _removed, ...rest } = TYPES_1_24;
  return { ...rest, iptables: { ...(TYPES_1_24.iptables as Struct), localhostNodePorts: 'null' } };
})();

/**
 * v0.28.0: logging (component-base logsapi.LoggingConfiguration, `omitempty` on a struct, so
 * always written): flushFrequency is a TimeOrMetaDuration, marshalled as an integer of
 * nanoseconds unless it was read as a string; format and vmodule are `omitempty`; options.json
 * holds splitStream (`omitempty`) and infoBufferSize (a QuantityValue, "0").
 */
const LOGGING_1_28: Struct = {
  format: 'omit',
  flushFrequency: 'number',
  verbosity: 'number',
  vmodule: 'omit',
  options: { json: { splitStream: 'omit', infoBufferSize: 'quantity' } },
};
const TYPES_1_28: Struct = { ...TYPES_1_26, logging: LOGGING_1_28 };

/** v0.29.0: nftables, and conntrack's tcpBeLiberal, udpTimeout and udpStreamTimeout. */
const TYPES_1_29: Struct = {
  ...TYPES_1_28,
  nftables: { masqueradeBit: 'null', masqueradeAll: 'bool', syncPeriod: 'duration', minSyncPeriod: 'duration' },
  conntrack: { ...(TYPES_1_28.conntrack as Struct), tcpBeLiberal: 'bool', udpTimeout: 'duration', udpStreamTimeout: 'duration' },
};

/**
 * component-base v0.30.0: logging.options.text (same fields as json). kube-proxy v0.31.0 adds
 * windowsRunAsService, `omitempty`. Unchanged up to v0.37.0-beta.0 (whose TypeMeta tag became
 * `json:""`, still inlined by encoding/json).
 */
const TYPES_1_30: Struct = {
  ...TYPES_1_29,
  logging: { ...LOGGING_1_28, options: { text: { splitStream: 'omit', infoBufferSize: 'quantity' }, json: { splitStream: 'omit', infoBufferSize: 'quantity' } } },
  windowsRunAsService: 'omit',
};

const TYPES: Readonly<Record<KubeProxyTypesRevision, Struct>> = {
  '1.20': TYPES_1_20, '1.24': TYPES_1_24, '1.26': TYPES_1_26, '1.28': TYPES_1_28, '1.29': TYPES_1_29, '1.30': TYPES_1_30,
};

/**
 * The revision of the types each minor's kube-proxy has (kubeadm of a minor builds with
 * k8s.io/kube-proxy of the same release). Kept here rather than in the version rows: the rows
 * describe kubeadm, this describes the kube-proxy API kubeadm marshals. Every row's minor is
 * listed (the compiler holds a new minor to it). 1.38 (the preview row) takes the newest revision:
 * master's types.go, after v0.37.0-beta.0, changed only comments (UNSURE until 1.38's own tag).
 */
const TYPES_OF_MINOR: Readonly<Record<SupportedMinor, KubeProxyTypesRevision>> = {
  '1.20': '1.20', '1.21': '1.20', '1.22': '1.20', '1.23': '1.20',
  '1.24': '1.24', '1.25': '1.24',
  '1.26': '1.26', '1.27': '1.26',
  '1.28': '1.28',
  '1.29': '1.29',
  '1.30': '1.30', '1.31': '1.30', '1.32': '1.30', '1.33': '1.30', '1.34': '1.30', '1.35': '1.30', '1.36': '1.30', '1.37': '1.30',
  '1.38': '1.30',
};

export function kubeProxyTypesOf(profile: Pick<VersionProfile, 'minor'>): KubeProxyTypesRevision {
  return TYPES_OF_MINOR[profile.minor];
}

/**
 * The user's KubeProxyConfiguration fields as kubeadm's Go struct holds them and marshals them
 * back: every field of the revision, zero where the user wrote nothing; durations the user wrote
 * in Go's canonical text ("1m" → "1m0s", as metav1.Duration marshals); fields the struct does not
 * have are dropped, as kubeadm's (non-strict) decoder drops them. apiVersion and kind are not
 * part of the result.
 */
export function fullKubeProxyFields(revision: KubeProxyTypesRevision, user: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return fill(TYPES[revision], user);
}

function fill(struct: Struct, user: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, kind] of Object.entries(struct)) {
    const given = user[field];
    if (typeof kind !== 'string') {
      out[field] = fill(kind, isPlainObject(given) ? given : {});
    } else if (given !== undefined) {
      out[field] = (kind === 'duration' || kind === 'durationPtr') ? canonicalDuration(given) : given;
    } else if (kind !== 'omit') {
      out[field] = ZERO[kind];
    }
  }
  return out;
}

/** metav1.Duration marshals time.Duration.String(); text Go cannot parse is left for validation to report. */
function canonicalDuration(value: unknown): unknown {
  if (typeof value !== 'string' || checkDuration(value) !== undefined) return value;
  return formatDuration(parseDuration(value));
}
