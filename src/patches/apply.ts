/**
 * Applying the loaded patch files for one target, in file order and document order, the way
 * kubeadm's PatchManager.ApplyPatchesToTarget does. Pure: the caller loads and logs.
 */
import { TsadmError } from '../errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../json.js';
import { PATCH_MEDIA_TYPE, type PatchType } from './filename.js';
import { applyJsonPatch } from './json-patch.js';
import type { PatchFile } from './load.js';
import { applyMergePatch } from './merge-patch.js';
import { PatchError } from './patch-error.js';
import type { PatchSchema } from './schema.js';
import { applyStrategicMergePatch } from './strategic.js';

export interface PatchResult {
  readonly result: JsonValue;
  /** One kubeadm notice per applied patch: `Applied patch of type "…" to target "…"`. */
  readonly notices: readonly string[];
}

export function applyPatchFiles(target: string, doc: JsonObject, files: readonly PatchFile[], schema: PatchSchema, dir: string): PatchResult {
  let current: JsonValue = doc;
  const notices: string[] = [];
  for (const file of files) {
    if (file.target !== target) continue;
    file.patches.forEach((patch, i) => {
      try {
        if (!isJsonObject(current)) throw new PatchError('the document being patched is no longer an object (a previous patch replaced it)');
        current = applyOne(file.type, current, patch, schema);
      } catch (err) {
        if (!(err instanceof PatchError)) throw err;
        const which = file.patches.length > 1 ? ` (document ${i + 1})` : '';
        throw new TsadmError('E_CONFIG_INVALID', `could not apply patch file "${file.file}"${which} of type "${file.type}" to target "${target}": ${err.message}`, {
          hint: `fix or remove ${dir.replace(/\/$/, '')}/${file.file}; ${hintFor(file.type)}`,
        });
      }
      notices.push(`Applied patch of type "${PATCH_MEDIA_TYPE[file.type]}" to target "${target}"`);
    });
  }
  return { result: current, notices };
}

function applyOne(type: PatchType, doc: JsonObject, patch: JsonValue, schema: PatchSchema): JsonValue {
  switch (type) {
    case 'json': return applyJsonPatch(doc, patch);
    case 'merge': return applyMergePatch(doc, patch);
    case 'strategic': return applyStrategicMergePatch(doc, patch, schema);
  }
}

function hintFor(type: PatchType): string {
  switch (type) {
    case 'json': return 'a "+json" file holds RFC 6902 operations: a list of {op, path, value}';
    case 'merge': return 'a "+merge" file holds an RFC 7386 merge patch: an object, null deletes a member';
    case 'strategic': return 'a strategic merge patch is an object shaped like the Pod; list items need their merge key (name, mountPath, containerPort)';
  }
}
