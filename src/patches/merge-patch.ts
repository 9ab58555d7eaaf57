/**
 * JSON merge patch (RFC 7386) with the behaviour of evanphx/json-patch v4.9 MergePatch, which
 * kubeadm uses: null deletes, objects merge recursively, anything else replaces; nulls inside a
 * value that is added (rather than merged) are pruned.
 */
import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from '../json.js';
import { PatchError } from './patch-error.js';

export function applyMergePatch(doc: JsonObject, patch: JsonValue): JsonValue {
  if (patch === null || typeof patch !== 'object') throw new PatchError('Invalid JSON Patch');
  // A non-object patch replaces the whole document (and then cannot be a Pod).
  if (Array.isArray(patch)) return pruneNulls(cloneJson(patch));
  const out = cloneJson(doc);
  mergeInto(out, cloneJson(patch));
  return out;
}

function mergeInto(doc: JsonObject, patch: JsonObject): void {
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) {
      delete doc[k];
      continue;
    }
    const cur = doc[k];
    doc[k] = cur === undefined || cur === null ? pruneNulls(v) : merge(cur, v);
  }
}

function merge(cur: JsonValue, patch: JsonValue): JsonValue {
  if (!isJsonObject(cur)) return pruneNulls(patch);
  if (!isJsonObject(patch)) return patch;
  mergeInto(cur, patch);
  return cur;
}

function pruneNulls(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.filter((e) => e !== null).map(pruneNulls);
  if (isJsonObject(v)) {
    for (const [k, e] of Object.entries(v)) {
      if (e === null) delete v[k];
      else v[k] = pruneNulls(e);
    }
  }
  return v;
}
