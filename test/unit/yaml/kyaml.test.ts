/**
 * The KYAML encoder against outputs of the reference implementation: kubectl's printer test
 * (cli-runtime, `-o kyaml` of a PodList), the examples of kubernetes/kubernetes PR #132942 (maps,
 * lists of scalars, cuddled lists of maps), and the rules of sigs.k8s.io/yaml's kyaml.go
 * (quoted keys, string escapes, line folding).
 */
import * as yaml from 'js-yaml';
import { needsQuotes, toKyaml, toKyamlDocuments } from '../../../src/yaml/kyaml.js';

describe('toKyaml', () => {
  test('a PodList as kubectl -o kyaml prints it', () => {
    const list = { apiVersion: 'v1', items: [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'demo', namespace: 'default' } }], kind: 'PodList' };
    expect(toKyaml(list)).toBe(`---
{
  apiVersion: "v1",
  items: [{
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "demo",
      namespace: "default",
    },
  }],
  kind: "PodList",
}
`);
  });

  test('PR #132942\'s examples: a struct, a list of scalars, a cuddled list of structs', () => {
    const out = toKyaml({
      metadata: { labels: { app: 'hostnames' }, name: 'hostnames' },
      ipFamilies: ['IPv4', 'IPv6'],
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }, { port: 443, protocol: 'TCP', targetPort: 443 }],
    });
    expect(out).toBe(`---
{
  metadata: {
    labels: {
      app: "hostnames",
    },
    name: "hostnames",
  },
  ipFamilies: [
    "IPv4",
    "IPv6",
  ],
  ports: [{
    port: 80,
    protocol: "TCP",
    targetPort: 80,
  }, {
    port: 443,
    protocol: "TCP",
    targetPort: 443,
  }],
}
`);
  });

  test('empty maps and lists, numbers, booleans, null; undefined members vanish as in JSON', () => {
    expect(toKyaml({ a: {}, b: [], c: 1.5, d: false, e: null, f: undefined, g: -3 })).toBe('---\n{\n  a: {},\n  b: [],\n  c: 1.5,\n  d: false,\n  e: null,\n  g: -3,\n}\n');
  });

  test('keys a YAML parser could misread are quoted; plain words, dotted and slashed names are not', () => {
    for (const k of ['apiVersion', 'kubernetes.io/os', 'node-role.kubernetes.io/control-plane', 'a_b', 'x1']) expect(needsQuotes(k)).toBe(false);
    for (const k of ['', 'no', 'Yes', 'on', 'null', '~', 'true', '1', '0x1F', '1e3', '1_000', '.5', 'inf', '.NaN', '11:00', '2024-01-02', '-lead', 'trail-', 'a:b', 'a b', 'ö:']) expect(needsQuotes(k)).toBe(true);
    expect(toKyaml({ no: 'x', '1.0': 'y', 'a b': 'z' })).toBe('---\n{\n  "no": "x",\n  "1.0": "y",\n  "a b": "z",\n}\n');
  });

  test('string values are double-quoted with Go\'s escapes', () => {
    expect(toKyaml({ s: 'say "hi"\\ \t\u0001\u00e9\u00a0' })).toBe('---\n{\n  s: "say \\"hi\\"\\\\ \\t\\x01\u00e9\\_",\n}\n');
  });

  test('a multi-line string is folded, one level deeper than its key, and reads back the same', () => {
    const corefile = '.:53 {\n    errors\n    health\n}\n';
    const out = toKyaml({ data: { Corefile: corefile } });
    // Lines without leading whitespace get one space more, lines with it an escaped first blank.
    expect(out).toBe('---\n{\n  data: {\n    Corefile: "\\\n       .:53 {\\n\\\n      \\    errors\\n\\\n      \\    health\\n\\\n       }\\n\\\n      ",\n  },\n}\n');
    // KYAML is YAML: a YAML parser reads the same value back.
    expect((yaml.load(out) as { data: { Corefile: string } }).data.Corefile).toBe(corefile);
  });

  test('every output reads back as the value it was made from', () => {
    const value = { kind: 'Images', apiVersion: 'output.kubeadm.k8s.io/v1alpha3', images: ['registry.k8s.io/pause:3.10.2'], nested: [[1, 2], [{ a: 'b' }]], odd: { 'yes': 'no', '08': '1e3' } };
    expect(yaml.load(toKyaml(value))).toEqual(value);
  });

  test('several documents, each with its own header', () => {
    expect(toKyamlDocuments([{ a: 1 }, { b: 2 }])).toBe('---\n{\n  a: 1,\n}\n---\n{\n  b: 2,\n}\n');
  });
});
