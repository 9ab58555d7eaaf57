import { MAX_ALIASES, MAX_EXPANDED_SIZE } from '../../../src/yaml/alias-limits.js';
import { MAX_CONFIG_BYTES, parseYamlDocuments } from '../../../src/config/yaml-docs.js';
import { resolveInitConfig } from '../../../src/config/load.js';
import { configError, withConfig } from './support.js';

describe('parseYamlDocuments', () => {
  test('splits on "---" lines (comments allowed after them) and records where each document starts', () => {
    const text = ['# leading comment', '---', 'a: 1', '--- # second', '', 'b: 2', '---', '# only a comment', '---', 'c: 3', ''].join('\n');
    const parsed = parseYamlDocuments(text, 'f.yaml');
    expect(parsed.errors).toEqual([]);
    expect(parsed.documents).toEqual([
      { index: 1, line: 3, value: { a: 1 } },
      { index: 2, line: 6, value: { b: 2 } },
      { index: 3, line: 10, value: { c: 3 } },
    ]);
  });

  test('keeps timestamps and yes/no as strings (core schema, like kubeadm\'s JSON decoding)', () => {
    const parsed = parseYamlDocuments('expires: 2030-01-01T00:00:00Z\nflag: yes\nn: 1.20\n', 'f');
    expect(parsed.documents[0]?.value).toEqual({ expires: '2030-01-01T00:00:00Z', flag: 'yes', n: 1.2 });
  });

  // The "billion laughs": nine levels of ten aliases of the level before, 10^9 strings when expanded,
  // with only 90 aliases: under the alias count, so only the expansion bound can refuse it.
  const laughs = (levels: number): string => {
    const names = 'abcdefghij';
    const lines = [`a: &a [${Array(10).fill('"lol"').join(',')}]`];
    for (let i = 1; i < levels; i++) lines.push(`${names[i]}: &${names[i]} [${Array(10).fill(`*${names[i - 1]}`).join(',')}]`);
    return lines.join('\n');
  };

  test('refuses the billion laughs: its aliases would expand it beyond 1 MiB', () => {
    const parsed = parseYamlDocuments(`kind: X\n${laughs(9)}\n`, 'bomb.yaml');
    expect(parsed.documents).toEqual([]);
    expect(parsed.errors).toEqual([`bomb.yaml: line 1: YAML aliases expand this document beyond ${MAX_EXPANDED_SIZE} bytes (an alias bomb?); write the values out instead`]);
  });

  test('accepts aliases that expand within the bound, as kubeadm does (three levels: 1000 strings)', () => {
    const parsed = parseYamlDocuments(laughs(3), 'f.yaml');
    expect(parsed.errors).toEqual([]);
    const value = parsed.documents[0]?.value as { c: string[][][] };
    expect(value.c.flat(2)).toHaveLength(1000);
    expect(new Set(value.c.flat(2))).toEqual(new Set(['lol']));
  });

  test(`accepts ${MAX_ALIASES} aliases in a document and refuses one more, through js-yaml's maxAliases`, () => {
    const doc = (n: number): string => `san: &s a.example.com\ncertSANs: [${Array(n).fill('*s').join(', ')}]\n`;
    const allowed = parseYamlDocuments(doc(MAX_ALIASES), 'f.yaml');
    expect(allowed.errors).toEqual([]);
    expect((allowed.documents[0]?.value as { certSANs: string[] }).certSANs).toEqual(Array(MAX_ALIASES).fill('a.example.com'));
    // 101 aliases of one short scalar expand to a few KiB: only the count limit refuses them, so
    // this fails if the installed js-yaml ignores the option.
    const refused = parseYamlDocuments(doc(MAX_ALIASES + 1), 'f.yaml');
    expect(refused.documents).toEqual([]);
    expect(refused.errors).toHaveLength(1);
    expect(refused.errors[0]).toMatch(new RegExp(`^f\\.yaml: line 2, column \\d+: the document has more than ${MAX_ALIASES} YAML aliases; write the values out instead of referring to anchors$`));
  });

  test('counts aliases per document, as the limit is documented', () => {
    const doc = `san: &s x\nl: [${Array(MAX_ALIASES).fill('*s').join(',')}]\n`;
    const parsed = parseYamlDocuments(`${doc}---\n${doc}`, 'f.yaml');
    expect(parsed.errors).toEqual([]);
    expect(parsed.documents).toHaveLength(2);
  });

  test('refuses an alias inside its own anchor (a value that contains itself)', () => {
    const parsed = parseYamlDocuments('kind: X\ncontrollerManager: &loop\n  extraArgs: [*loop]\n', 'loop.yaml');
    expect(parsed.documents).toEqual([]);
    expect(parsed.errors).toEqual(['loop.yaml: line 1: a YAML alias refers to a node that contains it (a recursive alias)']);
  });

  test('refuses files over 1 MiB without parsing them', () => {
    const big = `a: "${'x'.repeat(MAX_CONFIG_BYTES)}"\n`;
    expect(parseYamlDocuments(big, 'big.yaml').errors).toEqual(['big.yaml: the file is larger than 1 MiB; refusing to parse it']);
  });

  test('reports a syntax error with its line, and still parses the other documents', () => {
    const text = 'apiVersion: v1\nkind: A\n---\na: [1\n---\nb: 2\n';
    const parsed = parseYamlDocuments(text, 'f.yaml');
    expect(parsed.errors).toHaveLength(1);
    // The unclosed flow sequence ends with its document, at the end of line 4.
    expect(parsed.errors[0]).toMatch(/^f\.yaml: line 4, column 6: YAML syntax error: /);
    expect(parsed.documents.map((d) => d.value)).toEqual([{ apiVersion: 'v1', kind: 'A' }, { b: 2 }]);
  });
});

test('an oversized --config is one E_CONFIG_INVALID error', () => {
  const err = configError(() => resolveInitConfig(withConfig(`# ${'x'.repeat(MAX_CONFIG_BYTES)}\n`)));
  expect(err.code).toBe('E_CONFIG_INVALID');
  expect(err.message).toBe('kubeadm.yaml: the file is larger than 1 MiB; refusing to parse it');
});
