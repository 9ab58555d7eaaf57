/**
 * "Is the live object already what we would write?" — true when every field tsadm sets has the
 * same value in the live object. Fields the server adds (defaults, status, uid) are ignored;
 * arrays must match element by element (a removed item is a difference). An empty value
 * (undefined, null, "", [], {}) in the desired object also matches an absent field, because
 * the API server drops empty fields on the way in.
 */
import { isPlainObject } from '../util/plain-object.js';

export function isSubset(desired: unknown, actual: unknown): boolean {
  if (isEmpty(desired)) return isEmpty(actual) || actual === desired;
  if (Array.isArray(desired)) {
    if (!Array.isArray(actual) || actual.length !== desired.length) return false;
    return desired.every((d, i) => isSubset(d, actual[i]));
  }
  if (desired !== null && typeof desired === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const a = actual as Record<string, unknown>;
    return Object.entries(desired as Record<string, unknown>).every(([k, v]) => isSubset(v, a[k]));
  }
  return desired === actual;
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

/** Fields of a desired object that are compared (server-owned metadata is left out). */
export function comparableView(obj: { readonly metadata: object; readonly [k: string]: unknown }): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, status: _s, metadata, ...rest } = obj as Record<string, unknown> & { metadata: Record<string, unknown> };
  const { resourceVersion: _rv, uid: _uid, creationTimestamp: _ct, ...meta } = metadata;
  return { ...rest, metadata: meta };
}

/**
 * A JSON merge patch (RFC 7386) turning `before` into `after`: changed keys, nulls for removed
 * keys, arrays replaced whole. Empty object when nothing changed.
 */
export function mergePatch(before: unknown, after: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
    const bv = b[key];
    const av = a[key];
    if (!(key in a)) {
      out[key] = null;
    } else if (isPlainObject(av) && isPlainObject(bv)) {
      const sub = mergePatch(bv, av);
      if (Object.keys(sub).length > 0) out[key] = sub;
    } else if (JSON.stringify(av) !== JSON.stringify(bv)) {
      out[key] = av;
    }
  }
  return out;
}

