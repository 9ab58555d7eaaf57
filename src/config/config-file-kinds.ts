/**
 * The kinds a config file holds, read before any of them is resolved: `config migrate` and
 * `config validate` resolve each command's documents only when the file has them, as kubeadm's
 * MigrateOldConfig and ValidateConfig do (util/config/common.go).
 */
import { isPlainObject } from '../util/plain-object.js';
import { configInvalid } from './validate.js';
import { parseYamlDocuments } from './yaml-docs.js';

interface FileDocument {
  readonly apiVersion: string;
  readonly kind: string;
  readonly value: Readonly<Record<string, unknown>>;
}

export interface FileKinds {
  readonly documents: readonly FileDocument[];
  readonly has: (kind: string) => boolean;
  /** Whether the file has documents `init` reads (kubeadm: GroupVersionKindsHasInitConfiguration || …HasClusterConfiguration). */
  readonly hasInit: boolean;
}

/** The documents with an apiVersion and a kind; a YAML syntax error is thrown as E_CONFIG_INVALID. */
export function fileKinds(text: string, source: string): FileKinds {
  const parsed = parseYamlDocuments(text, source);
  if (parsed.errors.length > 0) throw configInvalid(parsed.errors, source);
  const documents: FileDocument[] = [];
  for (const doc of parsed.documents) {
    if (!isPlainObject(doc.value)) continue;
    const { apiVersion, kind } = doc.value;
    if (typeof apiVersion === 'string' && typeof kind === 'string') documents.push({ apiVersion, kind, value: doc.value });
  }
  const has = (kind: string): boolean => documents.some((d) => d.kind === kind);
  return { documents, has, hasInit: has('InitConfiguration') || has('ClusterConfiguration') };
}
