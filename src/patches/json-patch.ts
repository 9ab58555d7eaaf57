/**
 * JSON patch (RFC 6902) as evanphx/json-patch v4.9 applies it for kubeadm: add / remove /
 * replace / move / copy / test; "-" appends; negative array indices count from the end;
 * "replace" of a missing object member adds it (a v4.9 leniency kubeadm users may rely on).
 * Small enough to own, which keeps the dependency list unchanged.
 */
import { cloneJson, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../json.js';
import { PatchError } from './patch-error.js';

type Container = JsonObject | JsonValue[];

export function applyJsonPatch(doc: JsonObject, patch: JsonValue): JsonValue {
  if (!Array.isArray(patch)) throw new PatchError('a JSON patch must be a list of operations');
  const root: JsonObject = cloneJson(doc);
  patch.forEach((op, i) => {
    if (!isJsonObject(op)) throw new PatchError(`operation ${i} is not an object`);
    applyOp(root, op);
  });
  return root;
}

function applyOp(root: JsonObject, op: JsonObject): void {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  switch (kind) {
    case 'add': {
      const [con, key, p] = locate(root, op, 'path', 'add');
      add(con, key, valueOf(op), p);
      return;
    }
    case 'remove': {
      const [con, key, p] = locate(root, op, 'path', 'remove');
      remove(con, key, p);
      return;
    }
    case 'replace': {
      const [con, key, p] = locate(root, op, 'path', 'replace');
      if (Array.isArray(con)) {
        const idx = arrayIndex(key, p);
        if (idx < 0 || idx >= con.length) throw new PatchError(`replace operation does not apply: doc is missing key: ${p}`);
        con[idx] = valueOf(op);
      } else {
        con[key] = valueOf(op);
      }
      return;
    }
    case 'move': {
      const [from, fromKey, fromPath] = locate(root, op, 'from', 'move');
      const value = get(from, fromKey, fromPath);
      if (value === undefined) throw new PatchError(`move operation does not apply: doc is missing from path: ${fromPath}`);
      remove(from, fromKey, fromPath);
      const [con, key, p] = locate(root, op, 'path', 'move');
      add(con, key, value, p);
      return;
    }
    case 'copy': {
      const [from, fromKey, fromPath] = locate(root, op, 'from', 'copy');
      const value = get(from, fromKey, fromPath);
      if (value === undefined) throw new PatchError(`copy operation does not apply: doc is missing from path: ${fromPath}`);
      const [con, key, p] = locate(root, op, 'path', 'copy');
      add(con, key, cloneJson(value), p);
      return;
    }
    case 'test': {
      const [con, key, p] = locate(root, op, 'path', 'test');
      const actual = get(con, key, p);
      const expected = Object.hasOwn(op, 'value') ? op.value : undefined;
      if ((actual === undefined || actual === null) && (expected === undefined || expected === null)) return;
      if (!jsonEqual(actual, expected)) throw new PatchError(`testing value ${p} failed`);
      return;
    }
    default:
      throw new PatchError(`Unexpected kind: ${kind}`);
  }
}

function valueOf(op: JsonObject): JsonValue {
  return Object.hasOwn(op, 'value') ? cloneJson(op.value as JsonValue) : null;
}

/** The container holding the last token of a pointer, and that token (kubeadm's findObject). */
function locate(root: JsonObject, op: JsonObject, field: 'path' | 'from', verb: string): [Container, string, string] {
  const pointer = op[field];
  if (typeof pointer !== 'string') throw new PatchError(`${verb} operation is missing its "${field}" field`);
  const parts = pointer.split('/');
  const missing = new PatchError(`${verb} operation does not apply: doc is missing path: "${pointer}"`);
  if (parts.length < 2) throw missing;
  let doc: Container = root;
  for (const raw of parts.slice(1, -1)) {
    const next: JsonValue | undefined = get(doc, decode(raw), pointer, true);
    if (next === undefined || next === null || typeof next !== 'object') throw missing;
    doc = next;
  }
  return [doc, decode(parts[parts.length - 1] as string), pointer];
}

function get(con: Container, key: string, pointer: string, lenient = false): JsonValue | undefined {
  if (!Array.isArray(con)) return Object.hasOwn(con, key) ? con[key] : undefined;
  if (!/^-?\d+$/.test(key)) {
    if (lenient) return undefined;
    throw new PatchError(`value was not a proper array index: '${key}' (${pointer})`);
  }
  const idx = Number(key);
  if (idx < 0 || idx >= con.length) {
    if (lenient) return undefined;
    throw new PatchError(`Unable to access invalid index: ${idx} (${pointer})`);
  }
  return con[idx];
}

function add(con: Container, key: string, value: JsonValue, pointer: string): void {
  if (!Array.isArray(con)) {
    con[key] = value;
    return;
  }
  if (key === '-') {
    con.push(value);
    return;
  }
  let idx = arrayIndex(key, pointer);
  const size = con.length + 1;
  if (idx >= size || idx < -size) throw new PatchError(`error in add for path: '${pointer}': Unable to access invalid index: ${idx}`);
  if (idx < 0) idx += size;
  con.splice(idx, 0, value);
}

function remove(con: Container, key: string, pointer: string): void {
  if (!Array.isArray(con)) {
    if (!Object.hasOwn(con, key)) throw new PatchError(`error in remove for path: '${pointer}': Unable to remove nonexistent key: ${key}`);
    delete con[key];
    return;
  }
  let idx = arrayIndex(key, pointer);
  if (idx >= con.length || idx < -con.length) throw new PatchError(`error in remove for path: '${pointer}': Unable to access invalid index: ${idx}`);
  if (idx < 0) idx += con.length;
  con.splice(idx, 1);
}

function arrayIndex(key: string, pointer: string): number {
  if (!/^-?\d+$/.test(key)) throw new PatchError(`value was not a proper array index: '${key}' (${pointer})`);
  return Number(key);
}

/** RFC 6901: "~1" is "/", "~0" is "~", decoded in one left-to-right pass. */
function decode(token: string): string {
  return token.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}
