/**
 * Scalars as gopkg.in/yaml.v2 sees them: the style its encoder asks for (encode.go stringv,
 * floatv), what the emitter's analysis allows (emitterc.go yaml_emitter_analyze_scalar), and
 * the escapes of double-quoted output.
 */
import { canUsePlain } from './resolve.js';

export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal';

export interface ScalarAnalysis {
  readonly chars: readonly string[];
  readonly multiline: boolean;
  readonly flowPlainAllowed: boolean;
  readonly blockPlainAllowed: boolean;
  readonly singleQuotedAllowed: boolean;
  readonly blockAllowed: boolean;
}

/** How yaml.v2's encoder asks for a JSON scalar to be written (before the emitter's checks). */
export function scalarOf(value: null | boolean | number | string): [string, ScalarStyle] {
  if (value === null) return ['null', 'plain'];
  if (typeof value === 'boolean') return [value ? 'true' : 'false', 'plain'];
  if (typeof value === 'number') return [formatNumber(value), 'plain'];
  if (value.includes('\n')) return [value, 'literal'];
  return [value, canUsePlain(value) ? 'plain' : 'double'];
}

/**
 * JSON numbers without a fraction come back from yaml.v2 as ints; others as float64, written
 * with Go's strconv.FormatFloat(f, 'g', -1, 64): shortest digits, exponent form when the decimal
 * exponent is < -4 or >= 6 (strconv uses precision 6 for that decision when printing shortest).
 */
function formatNumber(n: number): string {
  if (Number.isNaN(n)) return '.nan';
  if (n === Infinity) return '.inf';
  if (n === -Infinity) return '-.inf';
  if (Number.isSafeInteger(n)) return String(n);
  const [mantissa = '0', expText = '0'] = n.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const digits = String(Math.abs(exp)).padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  return String(n);
}

export function analyzeScalar(text: string): ScalarAnalysis {
  const chars = [...text];
  if (chars.length === 0) {
    return { chars, multiline: false, flowPlainAllowed: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  }
  let blockIndicators = false;
  let flowIndicators = false;
  let lineBreaks = false;
  let specialCharacters = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  if (text.startsWith('---') || text.startsWith('...')) {
    blockIndicators = true;
    flowIndicators = true;
  }
  let precededByWhitespace = true;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as string;
    const next = chars[i + 1];
    const followedByWhitespace = next === undefined || next === ' ' || next === '\t';
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) {
        flowIndicators = true;
        blockIndicators = true;
      } else if (ch === '?' || ch === ':') {
        flowIndicators = true;
        if (followedByWhitespace) blockIndicators = true;
      } else if (ch === '-' && followedByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
    } else if (',?[]{}'.includes(ch)) {
      flowIndicators = true;
    } else if (ch === ':') {
      flowIndicators = true;
      if (followedByWhitespace) blockIndicators = true;
    } else if (ch === '#' && precededByWhitespace) {
      flowIndicators = true;
      blockIndicators = true;
    }
    if (!isPrintable(ch)) specialCharacters = true;
    if (ch === ' ') {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(ch)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = ch === ' ' || ch === '\t' || isBreak(ch) || ch === '\0';
  }
  let flowPlainAllowed = true;
  let blockPlainAllowed = true;
  let singleQuotedAllowed = true;
  let blockAllowed = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) {
    flowPlainAllowed = false;
    blockPlainAllowed = false;
  }
  if (trailingSpace) blockAllowed = false;
  if (breakSpace) {
    flowPlainAllowed = false;
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
  }
  if (spaceBreak || specialCharacters) {
    flowPlainAllowed = false;
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
    blockAllowed = false;
  }
  if (lineBreaks) {
    flowPlainAllowed = false;
    blockPlainAllowed = false;
  }
  if (flowIndicators) flowPlainAllowed = false;
  if (blockIndicators) blockPlainAllowed = false;
  return { chars, multiline: lineBreaks, flowPlainAllowed, blockPlainAllowed, singleQuotedAllowed, blockAllowed };
}

export function isBreak(ch: string): boolean {
  return ch === '\r' || ch === '\n' || ch === '\u0085' || ch === '\u2028' || ch === '\u2029';
}

/** libyaml's is_printable, on code points (astral characters are not "printable" to it). */
export function isPrintable(ch: string): boolean {
  const c = ch.codePointAt(0) ?? 0;
  return c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);
}

const SHORT_ESCAPES: Readonly<Record<number, string>> = {
  0x00: '0', 0x07: 'a', 0x08: 'b', 0x09: 't', 0x0a: 'n', 0x0b: 'v', 0x0c: 'f', 0x0d: 'r', 0x1b: 'e',
  0x22: '"', 0x5c: '\\', 0x85: 'N', 0xa0: '_', 0x2028: 'L', 0x2029: 'P',
};

export function escapeFor(ch: string): string {
  const c = ch.codePointAt(0) ?? 0;
  const short = SHORT_ESCAPES[c];
  if (short !== undefined) return short;
  const hex = c.toString(16).toUpperCase();
  if (c <= 0xff) return `x${hex.padStart(2, '0')}`;
  if (c <= 0xffff) return `u${hex.padStart(4, '0')}`;
  return `U${hex.padStart(8, '0')}`;
}

