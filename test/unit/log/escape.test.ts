import { escaped, neutralised, quoted } from '../../../src/log/escape.js';

/**
 * Untrusted text made printable. `quoted` is Go's strconv.Quote (fmt's %q): the expected texts are
 * what Go 1.22's fmt.Printf("%q") prints for each input (control characters as \a \b \f \n \r \t
 * \v or \xNN, other non-printable runes as \uNNNN or \UNNNNNNNN, printable Unicode as is).
 */
const CASES: readonly [string, string][] = [
  ['w1', '"w1"'],
  ['w1\n[csr] Approving', '"w1\\n[csr] Approving"'],
  ['\x1b[2J', '"\\x1b[2J"'],
  ['a\u202eb', '"a\\u202eb"'],
  ['\u0085', '"\\u0085"'],
  ['tab\there\r', '"tab\\there\\r"'],
  ['q"b\\s', '"q\\"b\\\\s"'],
  ['\x00\x7f\x07\x08\x0c\x0b', '"\\x00\\x7f\\a\\b\\f\\v"'],
  ['ünïcödé 日本', '"ünïcödé 日本"'],
  ['\u2028', '"\\u2028"'],
  ['\u{e0001}', '"\\U000e0001"'],
];

test.each(CASES)('quoted(%j) is Go\'s %%q: %s', (input, expected) => {
  expect(quoted(input)).toBe(expected);
  expect(escaped(input)).toBe(expected.slice(1, -1));
});

describe('neutralised: the reporters\' last line of defence', () => {
  test('a forged line and a screen clear stay visible as text; newline and tab, which tsadm\'s own lines use, stay', () => {
    const text = 'Approving "w1"\n\tnext\x1b[2J\r\x9b31m\u202eevil\u2066\x07';
    expect(neutralised(text)).toBe('Approving "w1"\n\tnext\\x1b[2J\\r\\u009b31m\\u202eevil\\u2066\\a');
  });

  test('ordinary text, quotes and backslashes are left as they are', () => {
    const text = '[certs] Generating "ca" certificate and key in C:\\x (ünïcödé)';
    expect(neutralised(text)).toBe(text);
  });

  test('no character a terminal acts on survives, for any C0, C1 or bidi control', () => {
    const all = Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join('') + '\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069';
    const out = neutralised(all);
    // eslint-disable-next-line no-control-regex -- the point
    expect(out.replace(/[\n\t]/g, '')).not.toMatch(/[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(out).toContain('\n');
    expect(out).toContain('\t');
  });
});
