/**
 * The one YAML reader of tsadm: every YAML (or JSON read as YAML) tsadm parses — config files
 * (through src/config/yaml-docs.ts), --patches files, kubeconfigs, manifests, discovery files,
 * ConfigMap payloads read from the cluster — goes through here, so all of them get the same
 * three bounds (decision 48: a YAML file never decides how much tsadm allocates):
 * - the text is at most MAX_YAML_BYTES (1 MiB, the config file cap);
 * - at most MAX_ALIASES alias nodes per document (js-yaml's documented `maxAliases` option);
 * - the value with every alias expanded is at most MAX_EXPANDED_SIZE (a bomb of nested aliases
 *   stays under any alias count), measured by expansionProblem before anyone walks the value.
 * The limits themselves are defined once, in src/yaml/alias-limits.ts.
 *
 * Errors: js-yaml's YAMLException for syntax and the alias count (callers that report line
 * numbers read its mark), YamlLimitError for the size bounds. Both are plain Errors whose message
 * is one line fit for a TsadmError.
 */
import * as yaml from 'js-yaml';
import { MAX_ALIASES, MAX_EXPANDED_SIZE, expansionProblem } from './alias-limits.js';

/** The largest YAML text tsadm parses: 1 MiB, as for --config. */
const MAX_YAML_BYTES = 1024 * 1024;

export interface YamlReadOptions {
  /** js-yaml's schema; its default when unset (as the caller used before). */
  readonly schema?: yaml.Schema;
}

/** A bound of this module was exceeded (size of the text, or of the value with aliases expanded). */
export class YamlLimitError extends Error {
  constructor(message: string, readonly mark?: { readonly line: number; readonly column: number }) {
    super(message);
    this.name = 'YamlLimitError';
  }
}

/** True when ERR is js-yaml refusing the alias count (its own message names `maxAliases`). */
function isAliasCountError(err: unknown): boolean {
  return err instanceof yaml.YAMLException && err.reason.includes('maxAliases');
}

const ALIAS_COUNT_MESSAGE = `the document has more than ${MAX_ALIASES} YAML aliases; write the values out instead of referring to anchors`;

/** One document (js-yaml's load: an empty text is an error). */
export function loadYaml(text: string, opts: YamlReadOptions = {}): unknown {
  checkSize(text);
  const value = translate(() => yaml.load(text, loadOptions(opts)));
  checkExpansion(value);
  return value;
}

/** Every document of a stream (empty documents come back as null or undefined, as js-yaml gives them). */
export function loadYamlAll(text: string, opts: YamlReadOptions = {}): unknown[] {
  checkSize(text);
  const values = translate(() => yaml.loadAll(text, loadOptions(opts)));
  for (const v of values) checkExpansion(v);
  return values;
}

function loadOptions(opts: YamlReadOptions): { maxAliases: number; schema?: yaml.Schema } {
  return { maxAliases: MAX_ALIASES, ...(opts.schema ? { schema: opts.schema } : {}) };
}

function checkSize(text: string): void {
  if (Buffer.byteLength(text, 'utf8') > MAX_YAML_BYTES) throw new YamlLimitError('the YAML is larger than 1 MiB; refusing to parse it');
}

function checkExpansion(value: unknown): void {
  // js-yaml shares one object between an anchor and its aliases, so a bomb costs nothing to
  // parse; it would explode in whatever walks the value next. Measure it first.
  const problem = expansionProblem(value, MAX_EXPANDED_SIZE);
  if (problem !== undefined) throw new YamlLimitError(problem);
}

/** js-yaml's alias count error gets a message that says what to do; every other error passes. */
function translate<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (isAliasCountError(err)) {
      const mark = (err as yaml.YAMLException).mark;
      throw new YamlLimitError(ALIAS_COUNT_MESSAGE, mark ? { line: mark.line, column: mark.column } : undefined);
    }
    throw err;
  }
}
