import { parseFeatureGates } from '../../../src/config/feature-gates.js';

describe('parseFeatureGates', () => {
  test('Go ParseBool spellings', () => {
    expect(parseFeatureGates('PublicKeysECDSA=1,EtcdLearnerMode=F,RootlessControlPlane=TRUE')).toEqual({
      gates: { PublicKeysECDSA: true, EtcdLearnerMode: false, RootlessControlPlane: true },
      errors: [],
    });
  });
});
