import { secretToToken, tokenToSecret } from '../../../src/token/secret.js';
import { formatRfc3339, formatRfc3339Local, hostZone, parseRfc3339 } from '../../../src/token/rfc3339.js';
import type { SecretObject } from '../../../src/kube/types.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const unb64 = (s: string | undefined): string => Buffer.from(s ?? '', 'base64').toString();

/** Fixed zones (jest's sandboxed process.env cannot change the worker's TZ). */
const UTC = (): number => 0;
const KOLKATA = (): number => 330;
const NEW_YORK_WINTER = (): number => -300;

const now = new Date('2026-11-22T02:58:59.123Z');
const base = { token: 'abcdef.0123456789abcdef', description: '', ttlMs: 24 * 3600_000, usages: ['signing', 'authentication'], groups: ['system:bootstrappers:kubeadm:default-node-token'] };

describe('token Secret (docs/kubeadm-reference.md §6.4)', () => {
  test('exactly kubeadm\'s keys and values on a UTC host (observed 1.20 Secret)', () => {
    const s = tokenToSecret(base, now, UTC);
    expect(s.metadata).toEqual({ name: 'bootstrap-token-abcdef', namespace: 'kube-system' });
    expect(s.type).toBe('bootstrap.kubernetes.io/token');
    expect(s.data).toEqual({
      'token-id': b64('abcdef'),
      'token-secret': b64('0123456789abcdef'),
      expiration: 'MjAyNi0xMS0yM1QwMjo1ODo1OVo=', // "2026-11-23T02:58:59Z", as kubeadm wrote it
      'usage-bootstrap-signing': b64('true'),
      'usage-bootstrap-authentication': b64('true'),
      'auth-extra-groups': 'c3lzdGVtOmJvb3RzdHJhcHBlcnM6a3ViZWFkbTpkZWZhdWx0LW5vZGUtdG9rZW4=',
    });
  });

  test('the expiration is in the host\'s local time zone', () => {
    expect(unb64(tokenToSecret(base, now, KOLKATA).data?.expiration)).toBe('2026-11-23T08:28:59+05:30');
    expect(unb64(tokenToSecret(base, now, NEW_YORK_WINTER).data?.expiration)).toBe('2026-11-22T21:58:59-05:00');
  });

  test('TTL 0 → no expiration; description and groups omitted when empty', () => {
    const s = tokenToSecret({ ...base, ttlMs: 0, groups: [], description: '' }, now);
    expect(Object.keys(s.data ?? {}).sort()).toEqual(['token-id', 'token-secret', 'usage-bootstrap-authentication', 'usage-bootstrap-signing']);
  });

  test('an absolute expires wins over the TTL and is re-written in the local zone', () => {
    const s = tokenToSecret({ ...base, expires: '2030-01-02T03:04:05Z' }, now, KOLKATA);
    expect(unb64(s.data?.expiration)).toBe('2030-01-02T08:34:05+05:30');
  });

  test('round trip back to a token description (usages sorted)', () => {
    const info = secretToToken(tokenToSecret({ ...base, description: 'hello' }, now, UTC));
    expect(info).toEqual({
      token: { id: 'abcdef', secret: '0123456789abcdef' },
      description: 'hello',
      expires: { epochMs: Date.parse('2026-11-23T02:58:59Z'), offsetMinutes: 0 },
      usages: ['authentication', 'signing'],
      groups: ['system:bootstrappers:kubeadm:default-node-token'],
    });
  });

  test.each([
    ['no token-id', { 'token-secret': b64('0123456789abcdef') }, 'bootstrap-token-abcdef', 'bootstrap Token Secret has no token-id data: bootstrap-token-abcdef'],
    ['wrong name', { 'token-id': b64('abcdef'), 'token-secret': b64('0123456789abcdef') }, 'bootstrap-token-zzzzzz', 'bootstrap token name is not of the form \'bootstrap-token-(token-id)\'. Actual: "bootstrap-token-zzzzzz". Expected: "bootstrap-token-abcdef"'],
    ['no secret', { 'token-id': b64('abcdef') }, 'bootstrap-token-abcdef', 'bootstrap Token Secret has no token-secret data: bootstrap-token-abcdef'],
    ['bad expiration', { 'token-id': b64('abcdef'), 'token-secret': b64('0123456789abcdef'), expiration: b64('tomorrow') }, 'bootstrap-token-abcdef', 'can\'t parse expiration time of bootstrap token "bootstrap-token-abcdef"'],
  ])('unparseable Secret: %s', (_n, data, name, message) => {
    const s: SecretObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'kube-system' }, data };
    expect(() => secretToToken(s)).toThrow(message);
  });
});

describe('RFC 3339 as Go prints it', () => {
  test('parse keeps the offset; format uses it; zero offset is Z; fractions are dropped', () => {
    const t = parseRfc3339('2026-11-23T08:28:59.5+05:30');
    expect(t).toEqual({ epochMs: Date.parse('2026-11-23T02:58:59.500Z'), offsetMinutes: 330 });
    expect(formatRfc3339(t!.epochMs, t!.offsetMinutes)).toBe('2026-11-23T08:28:59+05:30');
    expect(formatRfc3339(t!.epochMs, 0)).toBe('2026-11-23T02:58:59Z');
    expect(parseRfc3339('2026-11-23 08:28:59Z')).toBeUndefined();
    expect(formatRfc3339Local(new Date('2026-01-01T00:00:00Z'), UTC)).toBe('2026-01-01T00:00:00Z');
    const d = new Date();
    expect(hostZone(d)).toBe(-d.getTimezoneOffset());
  });
});
