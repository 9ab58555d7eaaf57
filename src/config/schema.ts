/**
 * A tiny structural schema for kubeadm's config documents, and a strict checker. kubeadm decodes
 * YAML through JSON into Go structs, so a value of the wrong JSON type is an error and `null`
 * means "unset". Unknown fields are errors here (kubeadm only warns; tsadm is stricter so typos
 * surface). The checker returns a cleaned copy without the offending values, so later stages can
 * keep going and every problem is reported at once.
 */
import { checkDuration } from '../duration.js';

export type Schema =
  | 'string'
  | 'bool'
  | 'int'
  /** Any JSON number (Go float32/float64 fields). */
  | 'number'
  /** A string in Go duration syntax. */
  | 'duration'
  /** Anything (passed through unchecked). */
  | 'any'
  | { readonly list: Schema }
  | { readonly map: Schema }
  | { readonly fields: Readonly<Record<string, Schema>>; readonly open?: true };

export const list = (item: Schema): Schema => ({ list: item });
export const map = (value: Schema): Schema => ({ map: value });
export const fields = (f: Readonly<Record<string, Schema>>): { readonly fields: Readonly<Record<string, Schema>> } => ({ fields: f });
/** Known fields are checked, others passed through (component configs: their owners validate them). */
export const openFields = (f: Readonly<Record<string, Schema>>): Schema => ({ fields: f, open: true });

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface CheckResult {
  readonly value: unknown;
  readonly errors: readonly string[];
}

/**
 * Checks `value` against `schema`. `where` is appended to unknown-field and type errors
 * (e.g. "InitConfiguration, kubeadm.k8s.io/v1beta3") so the user knows which document is meant;
 * `elsewhere(path)` may name another API version that knows a field this one does not.
 */
export function checkSchema(
  value: unknown,
  schema: Schema,
  where: string,
  elsewhere: (path: string) => string | undefined = () => undefined,
): CheckResult {
  const errors: string[] = [];
  const cleaned = walk(value, schema, '', { errors, where, elsewhere });
  return { value: cleaned, errors };
}

interface Walk {
  readonly errors: string[];
  readonly where: string;
  readonly elsewhere: (path: string) => string | undefined;
}

/** Returns the cleaned value, or undefined when it must be dropped (error recorded). */
function walk(value: unknown, schema: Schema, path: string, w: Walk): unknown {
  if (value === null || value === undefined) return undefined;
  if (schema === 'any') return value;
  const fail = (expected: string): undefined => {
    // YAML turns unquoted 1.20 or true into a number or boolean; a string field needs quotes.
    const hint = expected === 'a string' && (typeof value === 'number' || typeof value === 'boolean') ? '; quote the value' : '';
    w.errors.push(`${path || '(document)'}: expected ${expected}, got ${describe(value)} (${w.where}${hint})`);
    return undefined;
  };
  if (schema === 'string') return typeof value === 'string' ? value : fail('a string');
  if (schema === 'bool') return typeof value === 'boolean' ? value : fail('a boolean (true or false)');
  if (schema === 'int') return Number.isInteger(value) ? value : fail('an integer');
  if (schema === 'number') return typeof value === 'number' ? value : fail('a number');
  if (schema === 'duration') {
    if (typeof value !== 'string') return fail('a duration string such as "4m0s"');
    const problem = checkDuration(value);
    if (problem) {
      w.errors.push(`${path}: invalid duration "${value}": ${problem}`);
      return undefined;
    }
    return value;
  }
  if ('list' in schema) {
    if (!Array.isArray(value)) return fail('a list');
    // A null list item is a zero value in Go; keep list positions stable for error paths.
    return value.map((item, i) => walk(item, schema.list, `${path}[${i}]`, w)).filter((v) => v !== undefined);
  }
  if ('map' in schema) {
    if (!isObj(value)) return fail('a mapping');
    const out: Obj = {};
    for (const [key, item] of Object.entries(value)) {
      const v = walk(item, schema.map, joinPath(path, key), w);
      if (v !== undefined) out[key] = v;
    }
    return out;
  }
  if (!isObj(value)) return fail('a mapping');
  const out: Obj = {};
  for (const [key, item] of Object.entries(value)) {
    const childPath = joinPath(path, key);
    const child = schema.fields[key];
    if (child === undefined && schema.open) {
      out[key] = item;
      continue;
    }
    if (child === undefined) {
      const other = w.elsewhere(childPath);
      w.errors.push(`${childPath}: unknown field (${w.where}${other ? `; the field exists in ${other}` : ''})`);
      continue;
    }
    const v = walk(item, child, childPath, w);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** Whether `path` (dotted, no list indexes) names a field of `schema`. */
export function hasPath(schema: Schema, path: string): boolean {
  let s: Schema | undefined = schema;
  for (const part of path.replace(/\[\d+\]/g, '').split('.')) {
    while (s !== undefined && typeof s === 'object' && 'list' in s) s = s.list;
    if (s === undefined || typeof s !== 'object' || !('fields' in s)) return false;
    s = s.fields[part];
  }
  return s !== undefined;
}

function joinPath(path: string, key: string): string {
  const part = /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
  return path === '' ? part : `${path}.${part}`;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (isObj(value)) return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}
