/**
 * The one "is this a plain object" test of tsadm (a leaf: it imports nothing): a value parsed
 * from YAML or JSON that is a mapping, not null, not an array.
 */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
