import { loadYaml } from '../../yaml/read.js';

/**
 * What reset needs from the local etcd's static pod manifest: its data directory (kubeadm's
 * getEtcdDataDir: the etcd-data hostPath volume, else --data-dir) and its identity in the etcd
 * cluster. Pure.
 */
export interface LocalEtcdMember {
  readonly dataDir?: string;
  readonly name?: string;
  readonly peerURLs: readonly string[];
  readonly clientURLs: readonly string[];
}

interface PodDoc {
  spec?: {
    containers?: Array<{ command?: string[] }>;
    volumes?: Array<{ name?: string; hostPath?: { path?: string } }>;
  };
}

export function parseEtcdManifest(text: string): LocalEtcdMember {
  const doc = (loadYaml(text) ?? {}) as PodDoc;
  const command = doc.spec?.containers?.[0]?.command ?? [];
  const flag = (name: string): string | undefined => {
    const hit = command.find((a) => a.startsWith(`--${name}=`));
    return hit === undefined ? undefined : hit.slice(name.length + 3);
  };
  const list = (name: string): string[] => (flag(name) ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const volume = doc.spec?.volumes?.find((v) => v.name === 'etcd-data')?.hostPath?.path;
  const dataDir = volume ?? flag('data-dir');
  const name = flag('name');
  return {
    ...(dataDir ? { dataDir } : {}),
    ...(name ? { name } : {}),
    peerURLs: list('initial-advertise-peer-urls'),
    clientURLs: list('advertise-client-urls'),
  };
}
