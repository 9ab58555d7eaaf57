import { computeDetachedSignature, verifyDetachedSignature } from '../../../src/token/jws.js';

describe('JWS detached signature (cluster-bootstrap token/jws)', () => {
  test('docs/kubeadm-reference.md §6.4 test vector', async () => {
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
