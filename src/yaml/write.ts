import { isJsonObject, type JsonValue } from '../json.js';
import { sortedKeys } from './key-order.js';
import { analyzeScalar, escapeFor, isBreak, isPrintable, scalarOf, type ScalarAnalysis, type ScalarStyle } from './scalar.js';

/**
 * The one YAML writer of tsadm: YAML exactly as kubeadm writes it. Every file and every printout
 * kubeadm produces in YAML — static Pod manifests (MarshalToYaml), kubelet configuration and
 * `config print` (MarshalToYamlForCodecs), kubeconfigs (clientcmd.Write), ConfigMap payloads,
 * `token list -o yaml`, `certs check-expiration -o yaml` (the cli-runtime YAML printer) and
 * `version -o yaml` (sigs.k8s.io/yaml.Marshal) — goes the same way (and tsadm's dry-run object
 * dumps follow it): Go's
 * json.Marshal, then sigs.k8s.io/yaml's JSONToYAML, which reads the JSON back into generic maps
 * and writes them with gopkg.in/yaml.v2 (v2.2.8 in kubeadm 1.20): map keys sorted by yaml.v2's
 * own order, 2-space indent, block sequences not indented under their key, empty collections as
 * {} / [], plain scalars where possible, long lines folded at spaces after column 80.
 * So there is one writer with no options: a second flavour would be a second answer to a
 * question kubeadm answers once.
 *
 * The emitter below is a port of the parts of yaml.v2's emitter (emitterc.go) that such a
 * document exercises, with the same state (column, indent stack, whitespace/indention flags), so
 * corner cases — folding, quoting, the `? ` form of very long keys — come out byte-identical.
 */
export function toKubeYaml(value: unknown): string {
  const e = new Emitter();
  e.emitNode(asJson(value), { root: true, sequence: false, mapping: false, simpleKey: false });
  e.writeIndent(); // document end
  return e.out.join('');
}

/** Several documents separated by "---" lines, as kubeadm joins them (`config print`, `token list`). */
export function toKubeYamlDocuments(values: readonly unknown[]): string {
  return values.map(toKubeYaml).join('---\n');
}

/**
 * The value as Go's json.Marshal hands it on: members that are undefined vanish (omitempty
 * fields the TypeScript objects leave unset), everything else must already be plain JSON.
 */
function asJson(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
}

interface NodeContext {
  readonly root: boolean;
  readonly sequence: boolean;
  readonly mapping: boolean;
  readonly simpleKey: boolean;
}

const BEST_INDENT = 2;
const BEST_WIDTH = 80;
/** yaml.v2 writes a mapping key in simple form only up to this many bytes. */
const SIMPLE_KEY_MAX_BYTES = 128;

class Emitter {
  readonly out: string[] = [];
  private column = 0;
  private indent = -1;
  private readonly indents: number[] = [];
  private whitespace = true;
  private indention = true;
  /** Always 0 here (see emitEmptyFlow); kept so the style rules read as in emitterc.go. */
  private readonly flowLevel = 0;

  emitNode(value: JsonValue, ctx: NodeContext): void {
    if (Array.isArray(value)) {
      if (value.length === 0) this.emitEmptyFlow('[', ']');
      else this.emitBlockSequence(value, ctx);
      return;
    }
    if (isJsonObject(value)) {
      const keys = sortedKeys(value);
      if (keys.length === 0) this.emitEmptyFlow('{', '}');
      else this.emitBlockMapping(value, keys);
      return;
    }
    const [text, requested] = scalarOf(value);
    this.emitScalar(text, requested, ctx);
  }

  private emitBlockSequence(items: readonly JsonValue[], ctx: NodeContext): void {
    // A sequence that is a mapping value is "indentless": its dashes align with the key.
    this.increaseIndent(false, ctx.mapping && !this.indention);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.emitNode(item, { root: false, sequence: true, mapping: false, simpleKey: false });
    }
    this.popIndent();
  }

  private emitBlockMapping(map: Readonly<Record<string, JsonValue>>, keys: readonly string[]): void {
    this.increaseIndent(false, false);
    for (const key of keys) {
      const value = map[key] as JsonValue;
      this.writeIndent();
      if (isSimpleKey(key)) {
        this.emitNode(key, { root: false, sequence: false, mapping: true, simpleKey: true });
        this.writeIndicator(':', false, false, false);
      } else {
        this.writeIndicator('?', true, false, true);
        this.emitNode(key, { root: false, sequence: false, mapping: true, simpleKey: false });
        this.writeIndent();
        this.writeIndicator(':', true, false, true);
      }
      this.emitNode(value, { root: false, sequence: false, mapping: true, simpleKey: false });
    }
    this.popIndent();
  }

  /**
   * Only empty collections are written in flow style: a non-empty one is in flow style only
   * inside another flow collection, and the only flow collections written are empty.
   */
  private emitEmptyFlow(open: string, close: string): void {
    this.writeIndicator(open, true, true, false);
    this.writeIndicator(close, false, false, false);
  }

  private emitScalar(text: string, requested: ScalarStyle, ctx: NodeContext): void {
    const a = analyzeScalar(text);
    const style = this.selectStyle(a, requested, ctx);
    this.increaseIndent(true, false);
    const allowBreaks = !ctx.simpleKey;
    switch (style) {
      case 'plain': this.writePlain(a.chars, allowBreaks); break;
      case 'single': this.writeSingleQuoted(a.chars, allowBreaks); break;
      case 'double': this.writeDoubleQuoted(a.chars, allowBreaks); break;
      case 'literal': this.writeLiteral(a.chars); break;
    }
    this.popIndent();
  }

  private selectStyle(a: ScalarAnalysis, requested: ScalarStyle, ctx: NodeContext): ScalarStyle {
    let style = requested;
    if (ctx.simpleKey && a.multiline) style = 'double';
    if (style === 'plain') {
      if ((this.flowLevel > 0 && !a.flowPlainAllowed) || (this.flowLevel === 0 && !a.blockPlainAllowed)) style = 'single';
      if (a.chars.length === 0 && (this.flowLevel > 0 || ctx.simpleKey)) style = 'single';
    }
    if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!a.blockAllowed || this.flowLevel > 0 || ctx.simpleKey)) style = 'double';
    return style;
  }

  private increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  private popIndent(): void {
    this.indent = this.indents.pop() ?? -1;
  }

  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  private writeIndicator(indicator: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    for (const ch of indicator) this.put(ch);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private put(ch: string): void {
    this.out.push(ch);
    this.column++;
  }

  private putBreak(): void {
    this.out.push('\n');
    this.column = 0;
  }

  /** write_break: a line feed resets the column; other break characters are copied. */
  private writeBreak(ch: string): void {
    if (ch === '\n') {
      this.putBreak();
    } else {
      this.out.push(ch);
      this.column = 0;
    }
  }

  private writePlain(chars: readonly string[], allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    this.writeUnescapedText(chars, allowBreaks, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeSingleQuoted(chars: readonly string[], allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    this.writeUnescapedText(chars, allowBreaks, true);
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  /**
   * The text of a plain or single-quoted scalar. yaml.v2 writes both with the same loop
   * (write_plain_scalar, write_single_quoted_scalar); the quoted one differs in two places only:
   * it never folds at its first or last character, and it doubles a single quote.
   */
  private writeUnescapedText(chars: readonly string[], allowBreaks: boolean, singleQuoted: boolean): void {
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i] as string;
      if (ch === ' ') {
        const inside = !singleQuoted || (i > 0 && i < chars.length - 1);
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && inside && chars[i + 1] !== ' ') this.writeIndent();
        else this.put(ch);
        spaces = true;
      } else if (isBreak(ch)) {
        if (!breaks && ch === '\n') this.putBreak();
        this.writeBreak(ch);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (singleQuoted && ch === "'") this.put("'");
        this.put(ch);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
  }

  private writeDoubleQuoted(chars: readonly string[], allowBreaks: boolean): void {
    this.writeIndicator('"', true, false, false);
    // yaml.v2 checks for a BOM at the start of the *value* for every character (is_bom ignores
    // its index), so a value starting with U+FEFF is escaped entirely. Kept for byte parity.
    const startsWithBom = chars[0] === '\uFEFF';
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i] as string;
      if (!isPrintable(ch) || startsWithBom || isBreak(ch) || ch === '"' || ch === '\\') {
        this.put('\\');
        for (const c of escapeFor(ch)) this.put(c);
        spaces = false;
      } else if (ch === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1) {
          this.writeIndent();
          if (chars[i + 1] === ' ') this.put('\\');
        } else {
          this.put(ch);
        }
        spaces = true;
      } else {
        this.put(ch);
        spaces = false;
      }
    }
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeLiteral(chars: readonly string[]): void {
    this.writeIndicator('|', true, false, false);
    this.writeBlockScalarHints(chars);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const ch of chars) {
      if (isBreak(ch)) {
        this.writeBreak(ch);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(ch);
        this.indention = false;
        breaks = false;
      }
    }
  }

  private writeBlockScalarHints(chars: readonly string[]): void {
    const first = chars[0];
    if (first !== undefined && (first === ' ' || isBreak(first))) this.writeIndicator(String(BEST_INDENT), false, false, false);
    let chomp = '';
    const last = chars[chars.length - 1];
    if (last === undefined || !isBreak(last)) chomp = '-';
    else if (chars.length === 1) chomp = '+';
    else if (isBreak(chars[chars.length - 2] as string)) chomp = '+';
    if (chomp) this.writeIndicator(chomp, false, false, false);
  }
}

function isSimpleKey(key: string): boolean {
  return !/[\r\n\u0085\u2028\u2029]/.test(key) && Buffer.byteLength(key) <= SIMPLE_KEY_MAX_BYTES;
}
