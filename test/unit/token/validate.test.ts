import { validateGroups, validateGroupsNeedAuthentication, validateUsages } from '../../../src/token/validate.js';

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
