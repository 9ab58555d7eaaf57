import { expect } from '@jest/globals';
import { formatToken, generateToken, isValidToken, isValidTokenId, parseToken, randomTokenChars, tokenSecretName } from '../../../src/token/bootstrap-token.js';
import { computeDetachedSignature, verifyDetachedSignature } from '../../../src/token/jws.js';
import { validateGroups, validateGroupsNeedAuthentication, validateUsages } from '../../../src/token/validate.js';

describe('bootstrap token strings', () => {
  test('generated tokens match kubeadm\'s format', () => {
    for (let i = 0; i < 200; i++) expect(generateToken()).toMatch(/^[a-z0-9]{6}\.[a-z0-9]{16}$/);
  });

  test('kubeadm\'s alphabet and rejection sampling: bytes ≥ 252 are skipped, others map b % 36', () => {
    // 0→'0', 35→'z', 36→'0', 251→'z' (251 % 36 = 35), 252..255 rejected.
    const script = [252, 0, 253, 35, 36, 255, 251, 10];
    const random = (n: number): Uint8Array => Uint8Array.from(script.splice(0, n).concat(Array(Math.max(0, n - script.length)).fill(1)));
    expect(randomTokenChars(5, random)).toBe('0z0za');
  });

  test('parse / format / validate', () => {
    expect(parseToken('abcdef.0123456789abcdef')).toEqual({ id: 'abcdef', secret: '0123456789abcdef' });
    expect(formatToken({ id: 'abcdef', secret: '0123456789abcdef' })).toBe('abcdef.0123456789abcdef');
    expect(tokenSecretName('abcdef')).toBe('bootstrap-token-abcdef');
    expect(isValidTokenId('abcdef')).toBe(true);
  });

  test.each(['ABCDEF.0123456789abcdef', 'abcde.0123456789abcdef', 'abcdef-0123456789abcdef', 'abcdef.0123456789abcdeF', ' abcdef.0123456789abcdef', 'abcdef.0123456789abcdef\n'])('rejects %j', (bad) => {
    expect(isValidToken(bad)).toBe(false);
    expect(() => parseToken(bad)).toThrow(expect.objectContaining({ code: 'E_CONFIG_INVALID' }));
  });

  test('a parse error never echoes the token (it may be a real secret)', () => {
    const secretish = 'abcdef.0123456789ABCDEF';
    try {
      parseToken(secretish);
    } catch (err) {
      expect((err as Error).message).not.toContain('0123456789');
    }
  });
});

describe('JWS detached signature (cluster-bootstrap token/jws)', () => {
  test('spec §6.4 test vector', async () => {
    expect(await computeDetachedSignature('hello-kubeconfig\n', 'abcdef', '0123456789abcdef')).toBe('eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiY2RlZiJ9..HRxEyfTg4quhOH8bpgh5uPhMbEOG_iDWcEbFztQuTy8');
  });

  test('the key is the secret only; content, token id and secret all count', async () => {
    const sig = await computeDetachedSignature('payload', 'abcdef', '0123456789abcdef');
    expect(await verifyDetachedSignature(sig, 'payload', 'abcdef', '0123456789abcdef')).toBe(true);
    expect(await verifyDetachedSignature(sig, 'payload!', 'abcdef', '0123456789abcdef')).toBe(false);
    expect(await verifyDetachedSignature(sig, 'payload', 'abcdeg', '0123456789abcdef')).toBe(false);
    expect(await verifyDetachedSignature(sig, 'payload', 'abcdef', '0123456789abcdeg')).toBe(false);
    expect(await computeDetachedSignature('payload', 'abcdef', 'abcdef.0123456789abcdef')).not.toBe(sig);
  });

  test('malformed or foreign signatures are refused, never thrown', async () => {
    const sig = await computeDetachedSignature('payload', 'abcdef', '0123456789abcdef');
    const [header, , mac] = sig.split('.');
    const b64 = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    const attached = `${header}.${Buffer.from('payload').toString('base64url')}.${mac}`;
    for (const bad of [undefined, '', 'x', '..', attached, `${b64({ alg: 'none', kid: 'abcdef' })}..`, `${b64({ alg: 'HS512', kid: 'abcdef' })}..${mac}`, `${header}..${mac}x`]) {
      expect(await verifyDetachedSignature(bad, 'payload', 'abcdef', '0123456789abcdef')).toBe(false);
    }
    // A valid signature whose header names another token id is not this token's.
    const other = await computeDetachedSignature('payload', 'zzzzzz', '0123456789abcdef');
    expect(await verifyDetachedSignature(other, 'payload', 'abcdef', '0123456789abcdef')).toBe(false);
  });
});

describe('usages and groups', () => {
  test('known usages pass; unknown ones are all named, sorted', () => {
    expect(() => validateUsages(['signing', 'authentication'])).not.toThrow();
    expect(() => validateUsages(['zeta', 'signing', 'alpha'])).toThrow('invalid bootstrap token usage string: alpha,zeta, valid usage options: signing,authentication');
  });

  test.each([
    ['system:bootstrappers:kubeadm:default-node-token', true],
    ['system:bootstrappers:a', true],
    ['system:bootstrappers:', false],
    ['system:bootstrappers:trailing-', false],
    ['system:nodes', false],
    ['system:bootstrappers:UPPER', false],
  ])('group %s valid=%s', (g, ok) => {
    if (ok) expect(() => validateGroups([g])).not.toThrow();
    else expect(() => validateGroups([g])).toThrow(`bootstrap group "${g}" is invalid (must match \\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\z)`);
  });

  test('groups need the authentication usage', () => {
    expect(() => validateGroupsNeedAuthentication(['signing'], ['system:bootstrappers:x'])).toThrow('token groups cannot be specified unless --usages includes "authentication"');
    expect(() => validateGroupsNeedAuthentication(['signing'], [])).not.toThrow();
  });
});
