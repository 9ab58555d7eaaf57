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

  test('refuses anchors, so no alias can expand (billion laughs)', () => {
    const bomb = [
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
    ].join('\n');
    const parsed = parseYamlDocuments(bomb, 'bomb.yaml');
    expect(parsed.documents).toEqual([]);
    expect(parsed.errors).toEqual(['bomb.yaml: line 1: YAML anchors and aliases are not allowed (anchor "&a")']);
  });

  test('refuses files over 1 MiB without parsing them', () => {
    const big = `a: "${'x'.repeat(MAX_CONFIG_BYTES)}"\n`;
    expect(parseYamlDocuments(big, 'big.yaml').errors).toEqual(['big.yaml: the file is larger than 1 MiB; refusing to parse it']);
  });

  test('reports a syntax error with its line, and still parses the other documents', () => {
    const text = 'apiVersion: v1\nkind: A\n---\na: [1\n---\nb: 2\n';
    const parsed = parseYamlDocuments(text, 'f.yaml');
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]).toMatch(/^f\.yaml: line 5, column 1: YAML syntax error: /);
    expect(parsed.documents.map((d) => d.value)).toEqual([{ apiVersion: 'v1', kind: 'A' }, { b: 2 }]);
  });
});

test('an oversized --config is one E_CONFIG_INVALID error', () => {
  const err = configError(() => resolveInitConfig(withConfig(`# ${'x'.repeat(MAX_CONFIG_BYTES)}\n`)));
  expect(err.code).toBe('E_CONFIG_INVALID');
  expect(err.message).toBe('kubeadm.yaml: the file is larger than 1 MiB; refusing to parse it');
});
