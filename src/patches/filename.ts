/**
 * kubeadm's patch file names: `target[suffix][+patchtype].{json,yaml}` (util/patches/patches.go),
 * e.g. "kube-apiserver0+merge.yaml", "etcd.json", "kubeletconfiguration+json.yaml".
 */

export type PatchType = 'strategic' | 'merge' | 'json';

/** The media types kubeadm names patch types by in its "[patches] Applied patch of type …" lines. */
export const PATCH_MEDIA_TYPE: Readonly<Record<PatchType, string>> = {
  strategic: 'application/strategic-merge-patch+json',
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
};

export const STATIC_POD_PATCH_TARGETS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
export const KUBELET_CONFIG_PATCH_TARGET = 'kubeletconfiguration';
export const COREDNS_DEPLOYMENT_PATCH_TARGET = 'corednsdeployment';
/** The kube-proxy DaemonSet (kubeadm 1.37, PR #138090). */
export const KUBE_PROXY_DAEMONSET_PATCH_TARGET = 'kubeproxydaemonset';

/**
 * kubeadm accepts only .json and .yaml (not .yml): another extension makes it skip the file
 * with a notice, and so does tsadm, so the same directory patches the same way.
 */
const KNOWN_EXTENSIONS = ['json', 'yaml'];
const PATCH_TYPE_LIST: readonly PatchType[] = ['json', 'merge', 'strategic'];

export type ParsedFilename =
  | { readonly kind: 'patch'; readonly target: string; readonly type: PatchType }
  /** Not a patch file for these targets: skipped with this reason (kubeadm's wording). */
  | { readonly kind: 'ignore'; readonly reason: string }
  /** A patch file with a broken type: kubeadm fails on it. */
  | { readonly kind: 'error'; readonly reason: string };

export function parsePatchFilename(fileName: string, knownTargets: readonly string[]): ParsedFilename {
  if (!new RegExp(`.+\\.(${KNOWN_EXTENSIONS.join('|')})$`).test(fileName)) {
    return { kind: 'ignore', reason: `the file extension must be one of [${KNOWN_EXTENSIONS.join(' ')}]` };
  }
  // Same regular expression as kubeadm: anything after a known patch type is not checked.
  const re = new RegExp(`^(${knownTargets.map(escapeRe).join('|')})([^.+\\n]*)?(\\+)?(${PATCH_TYPE_LIST.join('|')})?`);
  const m = re.exec(fileName);
  if (!m || m[1] === undefined) return { kind: 'ignore', reason: `unknown target, must be one of [${knownTargets.join(' ')}]` };
  if (m[3] && !m[4]) {
    return { kind: 'error', reason: `unknown or missing patch type after '+', must be one of [${PATCH_TYPE_LIST.join(' ')}]` };
  }
  return { kind: 'patch', target: m[1], type: (m[4] as PatchType | undefined) ?? 'strategic' };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The targets a kubeadm of this minor knows. Files for other targets are skipped with a
 * notice, so the same list is used for every phase of a run (the directory is read once).
 */
export function patchTargetsFor(versions: {
  readonly kubelet: { readonly configPatchTarget: boolean };
  readonly addons: { readonly corednsPatchTarget: boolean; readonly kubeProxyPatchTarget: boolean };
}): string[] {
  return [
    ...STATIC_POD_PATCH_TARGETS,
    ...(versions.kubelet.configPatchTarget ? [KUBELET_CONFIG_PATCH_TARGET] : []),
    ...(versions.addons.corednsPatchTarget ? [COREDNS_DEPLOYMENT_PATCH_TARGET] : []),
    ...(versions.addons.kubeProxyPatchTarget ? [KUBE_PROXY_DAEMONSET_PATCH_TARGET] : []),
  ];
}
