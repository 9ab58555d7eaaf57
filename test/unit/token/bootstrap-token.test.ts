import { expect } from '@jest/globals';
import { formatToken, generateToken, isValidToken, isValidTokenId, parseToken, randomTokenChars, tokenSecretName } from '../../../src/token/bootstrap-token.js';

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
