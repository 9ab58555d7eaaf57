/**
 * Fields an init configuration may set that the kubeadm-config ConfigMap of the target minor
 * cannot carry (decision 74 in docs/decisions.md; docs/config.md).
 *
 * init uploads its ClusterConfiguration in the API version kubeadm of the target minor stores
 * (`configApiVersion` of src/versions/table.ts: v1beta2 for 1.20–1.21, v1beta3 for 1.22–1.30,
 * v1beta4 from 1.31: kubeadm PR #101129 made v1beta3 the newest version in 1.22, PR #125029's
 * note says the kubeadm-config "is now a v1beta4 ClusterConfiguration" in 1.31; serialized by
 * src/config/serialize.ts). Control planes that join later,
 * `certs renew` and `upgrade` read that record back, so a value the record cannot hold is used on
 * the first control plane only. kubeadm never meets this: it deploys its own minor and the one
 * before. Which fields: kubeadm's v1beta3 conversion (cmd/kubeadm/app/apis/kubeadm/v1beta3/
 * conversion.go and the "does not exist in peer-type" notes of its zz_generated.conversion.go:
 * encryptionAlgorithm, certificateValidityPeriod, caCertificateValidityPeriod (defaulted when
 * read back), proxy, dns.disabled, every extraEnvs, and extraArgs lists collapsed into maps
 * "where later keys will take precedence"). v1beta3's ClusterConfiguration adds no field to
 * v1beta2's (v1beta3/doc.go lists only removals there), so the list is the same for v1beta2.
 * v1beta3's and v1beta4's additions to InitConfiguration (skipPhases, patches, imagePullPolicy,
 * imagePullSerial, dryRun, timeouts) are not here: kubeadm never stores an InitConfiguration, in
 * any version, so they act on this run only whatever the target; the one timeout the record keeps
 * (controlPlaneComponentHealthCheck) is written as v1beta2/3's apiServer.timeoutForControlPlane.
 * etcd.external.httpEndpoints is refused below 1.35 by FIELDS_SINCE (src/config/load.ts).
 *
 * Each field is refused (later control planes or renewals would differ from this one), accepted
 * with a warning (only this run acts on it, and what reads the record later copes without it), or
 * carried by another field the record does hold. Pure.
 */
import { DEFAULTS } from '../constants.js';
import { SUPPORTED_MINORS, type SupportedMinor } from '../versions/minors.js';
import { VERSION_TABLE } from '../versions/table.js';
import type { VersionProfile } from '../versions/table-types.js';
import type { Arg, ClusterConfiguration, NodeRegistration } from './types.js';

export type StoredApiVersion = VersionProfile['configApiVersion'];

export interface StoredFieldTarget {
  /** The target Kubernetes version ("v1.20.0"), for messages. */
  readonly kubernetesVersion: string;
  readonly profile: Pick<VersionProfile, 'minor' | 'configApiVersion' | 'featureGates'>;
}

export interface StoredFieldFindings {
  readonly errors: string[];
  readonly warnings: string[];
  /** The cluster configuration with what could be carried by other fields moved there. */
  readonly cluster: ClusterConfiguration;
}

type Treatment = 'refuse' | 'warn' | 'carry';

/** One field of the table: where it is set to something the stored version cannot hold. */
export interface StoredFieldRule {
  /** The field as written in a v1beta4 file. */
  readonly field: string;
  /** The first stored API version that holds it. */
  readonly needs: StoredApiVersion;
  readonly treatment: Treatment;
  /** Why this treatment (docs/config.md repeats it). */
  readonly why: string;
  /** 'node': a field of this node's registration (init's and join's), not of the cluster. */
  readonly scope: 'cluster' | 'node';
  /** The concrete paths whose value would be lost (empty: nothing to say). */
  readonly lost: (c: ClusterConfiguration | undefined, n: NodeRegistration) => readonly string[];
}

const V4: StoredApiVersion = 'kubeadm.k8s.io/v1beta4';
const COMPONENTS = ['apiServer', 'controllerManager', 'scheduler'] as const;
const NON_DEFAULT_ALGORITHMS: readonly string[] = ['ECDSA-P256', 'ECDSA-P384', 'RSA-3072', 'RSA-4096'];

/** Names given more than once with different values (a map keeps only the last). */
function repeatedArgs(args: readonly Arg[]): string[] {
  const values = new Map<string, Set<string>>();
  for (const a of args) values.set(a.name, (values.get(a.name) ?? new Set()).add(a.value));
  return [...values].filter(([, v]) => v.size > 1).map(([name]) => name);
}

const localEtcd = (c: ClusterConfiguration) => (c.etcd.mode === 'local' ? c.etcd : undefined);

export const STORED_FIELD_RULES: readonly StoredFieldRule[] = [
  {
    field: 'certificateValidityPeriod',
    needs: V4,
    scope: 'cluster',
    treatment: 'refuse',
    why: 'control planes joining later sign their certificates, and `certs renew` renews every node\'s, with the stored period, which is the default 1 year when the record cannot hold it',
    lost: (c) => (c !== undefined && c.certificateValidityMs !== DEFAULTS.certificateValidityMs ? ['certificateValidityPeriod'] : []),
  },
  {
    field: 'caCertificateValidityPeriod',
    needs: V4,
    scope: 'cluster',
    treatment: 'warn',
    why: 'only the CAs init creates use it: joining control planes receive those CAs (upload-certs or a copy) and nothing renews a CA',
    lost: (c) => (c !== undefined && c.caCertificateValidityMs !== DEFAULTS.caCertificateValidityMs ? ['caCertificateValidityPeriod'] : []),
  },
  {
    field: 'encryptionAlgorithm',
    needs: V4,
    scope: 'cluster',
    treatment: 'refuse',
    why: 'control planes joining later generate their keys with the stored algorithm; ECDSA-P256 is carried by the PublicKeysECDSA feature gate, which the older records hold and kubeadm of those minors reads',
    // An unknown value is validate.ts's to report, once.
    lost: (c) => (c !== undefined && NON_DEFAULT_ALGORITHMS.includes(c.encryptionAlgorithm) ? ['encryptionAlgorithm'] : []),
  },
  {
    field: 'dns.disabled',
    needs: V4,
    scope: 'cluster',
    treatment: 'warn',
    why: 'only init deploys addons; an upgrade finds no CoreDNS ConfigMap and skips the addon with a warning, as kubeadm of those minors does',
    lost: (c) => (c !== undefined && c.dns.disabled ? ['dns.disabled'] : []),
  },
  {
    field: 'proxy.disabled',
    needs: V4,
    scope: 'cluster',
    treatment: 'warn',
    why: 'only init deploys addons; an upgrade finds no kube-proxy ConfigMap and skips the addon with a warning, as kubeadm of those minors does',
    lost: (c) => (c !== undefined && c.proxy.disabled ? ['proxy.disabled'] : []),
  },
  {
    field: '<component>.extraEnvs',
    needs: V4,
    scope: 'cluster',
    treatment: 'refuse',
    why: 'control planes joining later, and an upgrade of this one, render the static Pods from the stored record, without the variables',
    lost: (c) => c === undefined ? [] : [
      ...COMPONENTS.filter((n) => c[n].extraEnvs.length > 0).map((n) => `${n}.extraEnvs`),
      ...((localEtcd(c)?.extraEnvs.length ?? 0) > 0 ? ['etcd.local.extraEnvs'] : []),
    ],
  },
  {
    field: '<component>.extraArgs (a flag repeated)',
    needs: V4,
    scope: 'cluster',
    treatment: 'refuse',
    why: 'v1beta2/v1beta3 hold one value per flag and kubeadm of those minors builds the command line from that map, so every control plane, this one included, would keep only the last value',
    lost: (c) => c === undefined ? [] : [
      ...COMPONENTS.flatMap((n) => repeatedArgs(c[n].extraArgs).map((a) => `${n}.extraArgs[${JSON.stringify(a)}]`)),
      ...repeatedArgs(localEtcd(c)?.extraArgs ?? []).map((a) => `etcd.local.extraArgs[${JSON.stringify(a)}]`),
    ],
  },
  {
    field: 'nodeRegistration.kubeletExtraArgs (a flag repeated)',
    needs: V4,
    scope: 'node',
    treatment: 'refuse',
    why: 'kubeadm of those minors writes kubeadm-flags.env from one value per flag, so this node\'s kubelet would keep only the last value',
    lost: (_c, n) => repeatedArgs(n.kubeletExtraArgs).map((a) => `nodeRegistration.kubeletExtraArgs[${JSON.stringify(a)}]`),
  },
];

const ORDER: readonly StoredApiVersion[] = ['kubeadm.k8s.io/v1beta2', 'kubeadm.k8s.io/v1beta3', 'kubeadm.k8s.io/v1beta4'];

/** The first supported minor whose kubeadm stores this API version (or a newer one). */
export function firstMinorStoring(version: StoredApiVersion): SupportedMinor {
  const at = ORDER.indexOf(version);
  const minor = SUPPORTED_MINORS.find((m) => ORDER.indexOf(VERSION_TABLE[m].configApiVersion) >= at);
  if (minor === undefined) throw new Error(`no supported minor stores ${version}`);
  return minor;
}

const short = (v: StoredApiVersion): string => v.slice(v.indexOf('/') + 1);

/**
 * ECDSA-P256 for a target whose record has no encryptionAlgorithm: kubeadm of that minor derives
 * the algorithm from the PublicKeysECDSA gate (`PublicKeyAlgorithm()` of its internal
 * ClusterConfiguration: ECDSA when the gate is on, else RSA), and tsadm reading that record does
 * the same (src/config/defaults-cluster.ts), so setting the gate carries it. Not when the user
 * turned the gate off, nor when the minor has no such gate.
 */
function carriedByGate(c: ClusterConfiguration, target: StoredFieldTarget): boolean {
  const gate = target.profile.featureGates.PublicKeysECDSA;
  return c.encryptionAlgorithm === 'ECDSA-P256' && gate !== undefined && gate.removed !== true && c.featureGates.PublicKeysECDSA !== false;
}

export function storedFieldFindings(c: ClusterConfiguration, n: NodeRegistration, target: StoredFieldTarget): StoredFieldFindings {
  const stored = target.profile.configApiVersion;
  const errors: string[] = [];
  const warnings: string[] = [];
  let cluster = c;
  const where = `the kubeadm-config of Kubernetes ${target.kubernetesVersion} is ${short(stored)}`;
  for (const rule of STORED_FIELD_RULES) {
    if (ORDER.indexOf(stored) >= ORDER.indexOf(rule.needs)) continue;
    for (const path of rule.lost(c, n)) {
      if (path === 'encryptionAlgorithm') {
        // The gate already on: the record holds it and the algorithm follows from it.
        if (c.featureGates.PublicKeysECDSA === true) continue;
        if (carriedByGate(c, target)) {
          cluster = { ...cluster, featureGates: { ...cluster.featureGates, PublicKeysECDSA: true } };
          warnings.push(`encryptionAlgorithm: ${where}, which has no such field; ECDSA-P256 is stored as the feature gate PublicKeysECDSA=true instead, which kubeadm of ${target.profile.minor} reads`);
          continue;
        }
      }
      if (rule.treatment === 'warn') warnings.push(`${path}: ${where}, which cannot hold it, so it will not persist: it applies to this init only (${rule.why})`);
      else errors.push(refusal(rule, path, where, target));
    }
  }
  return { errors, warnings, cluster };
}

/**
 * join, once discovery has found the cluster's version: the node fields of a JoinConfiguration
 * the cluster's minor cannot carry (src/phases/join/state.ts).
 */
export function joinStoredFieldErrors(n: NodeRegistration, target: StoredFieldTarget): string[] {
  const stored = target.profile.configApiVersion;
  const where = `the kubeadm-config of Kubernetes ${target.kubernetesVersion} is ${short(stored)}`;
  return STORED_FIELD_RULES.filter((r) => r.scope === 'node' && ORDER.indexOf(stored) < ORDER.indexOf(r.needs))
    .flatMap((rule) => rule.lost(undefined, n).map((path) => refusal(rule, path, where, target)));
}

function refusal(rule: StoredFieldRule, path: string, where: string, target: StoredFieldTarget): string {
  const since = firstMinorStoring(rule.needs);
  const fix = path.includes('[') ? 'give the flag once' : 'remove it';
  return `${path}: needs kubeadm ${short(rule.needs)}, which Kubernetes ≥${since} stores; ${where}, so it would be lost (${rule.why}); for ${target.kubernetesVersion} ${fix} or target ≥${since}`;
}
