/**
 * Reading a --patches directory through the host seam (so --rootfs and dry-run apply).
 * Like kubeadm's getPatchSetsFromPath: files are visited in lexical order, sub-directories are
 * walked too (filepath.Walk), each file holds one or more YAML/JSON documents (one patch each).
 */
import path from 'node:path';
import { loadYamlAll } from '../yaml/read.js';
import { TsadmError, errorMessage } from '../errors.js';
import type { Host } from '../host/host.js';
import type { JsonValue } from '../json.js';
import { parsePatchFilename, type PatchType } from './filename.js';

export interface PatchFile {
  /** Path relative to the patches directory (the basename unless it sits in a sub-directory). */
  readonly file: string;
  readonly target: string;
  readonly type: PatchType;
  /** One entry per non-empty document, in file order. */
  readonly patches: readonly JsonValue[];
}

export interface LoadedPatches {
  readonly dir: string;
  readonly files: readonly PatchFile[];
  /** kubeadm's "[patches] …" notices about this directory, in order. */
  readonly notices: readonly string[];
}

export async function loadPatches(host: Host, dir: string, knownTargets: readonly string[]): Promise<LoadedPatches> {
  const st = await host.stat(dir);
  if (!st?.isDirectory) {
    throw new TsadmError('E_CONFIG_INVALID', `could not list patch files for path "${dir}": ${st ? 'not a directory' : 'no such directory'}`, {
      hint: 'point --patches (or patches.directory in the config) at a directory of patch files',
    });
  }
  const notices = [`Reading patches from path "${dir}"`];
  const files: PatchFile[] = [];
  const ignored: string[] = [];
  const walk = async (hostDir: string): Promise<void> => {
    for (const name of await host.readdir(hostDir)) {
      const full = path.posix.join(hostDir, name);
      const entry = await host.stat(full);
      if (entry?.isDirectory) {
        await walk(full);
        continue;
      }
      const parsed = parsePatchFilename(name, knownTargets);
      if (parsed.kind === 'error') {
        throw new TsadmError('E_CONFIG_INVALID', `could not list patch files for path "${dir}": ${parsed.reason} (file "${full}")`, {
          hint: 'name patch files target[suffix][+patchtype].{json,yaml} with patchtype strategic, merge or json',
        });
      }
      if (parsed.kind === 'ignore') {
        notices.push(`Ignoring file "${name}": ${parsed.reason}`);
        ignored.push(name);
        continue;
      }
      const data = (await host.readFile(full)) ?? Buffer.alloc(0);
      if (data.length === 0) {
        notices.push(`Ignoring empty file: "${name}"`);
        ignored.push(name);
        continue;
      }
      files.push({ file: path.posix.relative(dir, full), target: parsed.target, type: parsed.type, patches: parseDocuments(full, data.toString('utf8')) });
    }
  };
  await walk(dir);
  // Go's %v of a []string: "[a b c]".
  if (files.length > 0) notices.push(`Found the following patch files: [${files.map((f) => path.posix.basename(f.file)).join(' ')}]`);
  if (ignored.length > 0) notices.push(`Ignored the following files: [${ignored.join(' ')}]`);
  return { dir, files, notices };
}

function parseDocuments(file: string, text: string): JsonValue[] {
  try {
    // js-yaml 5 deprecates loadAll's iterator form; the returned array is the supported one.
    const docs = loadYamlAll(text);
    // Empty documents (blank, or only "---") are skipped as kubeadm skips them.
    return docs.filter((d) => d !== null && d !== undefined).map((d) => toJson(d));
  } catch (err) {
    throw new TsadmError('E_CONFIG_INVALID', `could not parse patch file "${file}": ${firstLine(errorMessage(err))}`, {
      hint: 'each document of a patch file must be valid YAML or JSON',
      cause: err,
    });
  }
}

/** YAML-only values (dates, binary) become what sigs.k8s.io/yaml's YAMLToJSON would give: JSON. */
function toJson(doc: unknown): JsonValue {
  return JSON.parse(JSON.stringify(doc)) as JsonValue;
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}
