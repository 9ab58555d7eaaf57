/**
 * Strategic merge patch, ported from k8s.io/apimachinery/pkg/util/strategicpatch (patch.go,
 * StrategicMergePatch with MergeParallelList and IgnoreUnmatchedNulls, as kubeadm calls it):
 * - objects merge member by member, null deletes a member;
 * - lists tagged "merge" merge element-wise by their merge key (containers by name, volumeMounts
 *   by mountPath, ports by containerPort, …); untagged lists are replaced;
 * - directives: `$patch: replace|delete` on an object or list element, `$retainKeys`,
 *   `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>`.
 * Element order follows the library: patched elements in patch order, interleaved with the
 * untouched ones in their original order (so a new element lands *before* the old ones).
 */
import { cloneJson, isJsonObject, jsonKind, type JsonObject, type JsonValue } from '../json.js';
import { PatchError } from './patch-error.js';
import type { PatchSchema } from './schema.js';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

export function applyStrategicMergePatch(doc: JsonObject, patch: JsonValue, schema: PatchSchema): JsonObject {
  if (!isJsonObject(patch)) throw new PatchError('a strategic merge patch must be an object');
  return mergeMap(cloneJson(doc), cloneJson(patch), schema);
}

function mergeMap(original: JsonObject, patch: JsonObject, schema: PatchSchema): JsonObject {
  if (Object.hasOwn(patch, DIRECTIVE)) return mapDirective(patch[DIRECTIVE] as JsonValue, patch);
  applyRetainKeys(original, patch);
  mergeSetElementOrder(original, patch, schema);
  for (const rawKey of Object.keys(patch)) {
    const patchV = patch[rawKey] as JsonValue;
    let key = rawKey;
    let isDeleteList = false;
    if (rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      key = extractKey(rawKey, DELETE_FROM_PRIMITIVE_LIST);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete original[key];
      continue;
    }
    const cur = original[key];
    if (cur === undefined || jsonKind(cur) !== jsonKind(patchV)) {
      original[key] = patchV;
      continue;
    }
    const meta = schema.field(key);
    if (isJsonObject(cur) && isJsonObject(patchV)) {
      original[key] = meta.strategy === 'replace' ? patchV : mergeMap(cur, patchV, meta.schema);
    } else if (Array.isArray(cur) && Array.isArray(patchV)) {
      original[key] = meta.strategy === 'merge' ? mergeSlice(cur, patchV, meta.schema, meta.mergeKey, isDeleteList) : patchV;
    } else {
      original[key] = patchV;
    }
  }
  return original;
}

function mapDirective(directive: JsonValue, patch: JsonObject): JsonObject {
  if (directive === 'replace') {
    delete patch[DIRECTIVE];
    return patch;
  }
  if (directive === 'delete') return {};
  throw new PatchError(`unknown patch type: ${JSON.stringify(directive)} in map: ${JSON.stringify(patch)}`);
}

function extractKey(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) throw new PatchError(`invalid patch format for ${prefix}: "${key}"`);
  return key.slice(slash + 1);
}

function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw new PatchError('invalid patch format of retainKeys');
  const keep = new Set(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw new PatchError(`invalid patch format of retainKeys: "${k}" is not listed`);
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

function mergeSlice(original: JsonValue[], patch: JsonValue[], schema: PatchSchema, mergeKey: string, isDeleteList: boolean): JsonValue[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementKind(original, patch);
  let orig = original;
  let items = patch;
  let merged: JsonValue[];
  if (kind !== 'object') {
    if (isDeleteList) return original.filter((v) => !patch.includes(v));
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (!mergeKey) throw new PatchError(`cannot merge lists without merge key for ${schema.name}`);
    [orig, items] = mergeWithSpecialElements(original, patch, mergeKey);
    merged = mergeWithoutSpecialElements(orig, items, mergeKey, schema);
  }
  const [patchItems, serverOnly] = kind === 'object'
    ? partitionMaps(merged, items, mergeKey)
    : [merged.filter((v) => items.includes(v)), merged.filter((v) => !items.includes(v))];
  return normalizeElementOrder(patchItems, serverOnly, items, orig, mergeKey, kind);
}

function sliceElementKind(...lists: JsonValue[][]): string {
  let kind: string | undefined;
  for (const list of lists) {
    for (const v of list) {
      const k = jsonKind(v);
      if (k === 'array') throw new PatchError('lists of lists are not supported');
      if (k === 'null') throw new PatchError(`list element types are not identical: ${JSON.stringify(lists)}`);
      if (kind === undefined) kind = k;
      else if (kind !== k) throw new PatchError(`list element types are not identical: ${JSON.stringify(lists)}`);
    }
  }
  if (kind === undefined) throw new PatchError('no elements in any of the given slices');
  return kind;
}

/** The library's in-place de-duplication, which moves the last element into a removed slot. */
function deduplicateScalars(s: JsonValue[]): JsonValue[] {
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (s[i] === s[j]) {
        s[j] = s[length] as JsonValue;
        s.length = length;
        length--;
        j--;
      }
    }
  }
  return s;
}

function mergeWithSpecialElements(original: JsonValue[], patch: JsonValue[], mergeKey: string): [JsonValue[], JsonValue[]] {
  const plain: JsonValue[] = [];
  let replace = false;
  let orig = original;
  for (const v of patch) {
    const item = v as JsonObject;
    if (!Object.hasOwn(item, DIRECTIVE)) {
      plain.push(v);
      continue;
    }
    switch (item[DIRECTIVE]) {
      case 'delete':
        if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
        orig = orig.filter((o) => !(isJsonObject(o) && o[mergeKey] === item[mergeKey]));
        break;
      case 'replace':
        replace = true;
        break;
      case 'merge':
        throw new PatchError('merging lists cannot yet be specified in the patch');
      default:
        throw new PatchError(`unknown patch type: ${JSON.stringify(item[DIRECTIVE])} in map: ${JSON.stringify(item)}`);
    }
  }
  return replace ? [plain, []] : [orig, plain];
}

function mergeWithoutSpecialElements(original: JsonValue[], patch: JsonValue[], mergeKey: string, schema: PatchSchema): JsonValue[] {
  const out = [...original];
  for (const v of patch) {
    const item = v as JsonObject;
    if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    const idx = findByKey(out, mergeKey, item[mergeKey] as JsonValue);
    if (idx >= 0) out[idx] = mergeMap(out[idx] as JsonObject, item, schema);
    else out.push(v);
  }
  return out;
}

function findByKey(list: readonly JsonValue[], mergeKey: string, value: JsonValue): number {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isJsonObject(item)) throw new PatchError(`value for key ${i} is not a map`);
    if (Object.hasOwn(item, mergeKey) && item[mergeKey] === value) return i;
  }
  return -1;
}

function partitionMaps(merged: readonly JsonValue[], by: readonly JsonValue[], mergeKey: string): [JsonValue[], JsonValue[]] {
  const patchItems: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const v of merged) {
    if (!isJsonObject(v)) throw new PatchError(`expected a map, got ${JSON.stringify(v)}`);
    if (!Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
    (findByKey(by, mergeKey, v[mergeKey] as JsonValue) >= 0 ? patchItems : serverOnly).push(v);
  }
  return [patchItems, serverOnly];
}

function indexIn(list: readonly JsonValue[], v: JsonValue, mergeKey: string, kind: string): number {
  if (kind !== 'object') return list.indexOf(v);
  const key = isJsonObject(v) ? v[mergeKey] : undefined;
  return list.findIndex((item) => isJsonObject(item) && item[mergeKey] === key);
}

function normalizeElementOrder(patchItems: JsonValue[], serverOnly: JsonValue[], patchOrder: readonly JsonValue[], serverOrder: readonly JsonValue[], mergeKey: string, kind: string): JsonValue[] {
  const p = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

function normalizeSliceOrder(toSort: JsonValue[], order: readonly JsonValue[], mergeKey: string, kind: string): JsonValue[] {
  let items = toSort;
  let toDelete: JsonValue[] = [];
  if (kind === 'object') {
    for (const v of [...items, ...order]) {
      if (!isJsonObject(v)) throw new PatchError(`expected a map, got ${JSON.stringify(v)}`);
      if (!Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
    }
    toDelete = items.filter((v) => (v as JsonObject)[DIRECTIVE] === 'delete');
    items = items.filter((v) => (v as JsonObject)[DIRECTIVE] !== 'delete');
  }
  const sorted = [...items].sort((a, b) => {
    const ia = indexIn(order, a, mergeKey, kind);
    const ib = indexIn(order, b, mergeKey, kind);
    return ia >= 0 && ib >= 0 ? ia - ib : 0;
  });
  return [...sorted, ...toDelete];
}

/**
 * Interleaves untouched (left) and patched (right) elements: a left element goes first only if
 * both are in the original list and it came earlier there.
 */
function mergeSortedSlice(left: readonly JsonValue[], right: readonly JsonValue[], serverOrder: readonly JsonValue[], mergeKey: string, kind: string): JsonValue[] {
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++] as JsonValue);
    else if (j >= right.length) out.push(left[i++] as JsonValue);
    else {
      const li = indexIn(serverOrder, left[i] as JsonValue, mergeKey, kind);
      const ri = indexIn(serverOrder, right[j] as JsonValue, mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++] as JsonValue);
      else out.push(right[j++] as JsonValue);
    }
  }
  return out;
}

/** `$setElementOrder/<field>`: the order a client wants for a merged list (kubectl apply). */
function mergeSetElementOrder(original: JsonObject, patch: JsonObject, schema: PatchSchema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw new PatchError(`invalid patch format for ${SET_ELEMENT_ORDER}: "${key}" must be a list`);
    const field = extractKey(key, SET_ELEMENT_ORDER);
    const origList = original[field];
    const patchList = patch[field];
    if (origList !== undefined && !Array.isArray(origList)) throw new PatchError(`${field} is not a list`);
    if (patchList !== undefined && !Array.isArray(patchList)) throw new PatchError(`${field} in the patch is not a list`);
    if (origList === undefined && patchList === undefined) continue;
    const meta = schema.field(field);
    let merged: JsonValue[];
    if (origList === undefined) merged = patchList as JsonValue[];
    else if (patchList === undefined) merged = origList;
    else merged = meta.strategy === 'merge' ? mergeSlice(origList, patchList, meta.schema, meta.mergeKey, false) : patchList;
    const kind = sliceElementKind(origList ?? [], patchList ?? []);
    const [patchItems, serverOnly] = meta.mergeKey
      ? partitionMaps(merged, order, meta.mergeKey)
      : [merged.filter((v) => order.includes(v)), merged.filter((v) => !order.includes(v))];
    original[field] = normalizeElementOrder(patchItems, serverOnly, order, origList ?? [], meta.mergeKey, kind);
    delete patch[field];
  }
}

function noMergeKey(item: JsonObject, mergeKey: string): PatchError {
  return new PatchError(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
}
