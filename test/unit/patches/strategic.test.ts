import { POD_PATCH_SCHEMA, untyped } from '../../../src/patches/schema.js';
import { applyStrategicMergePatch } from '../../../src/patches/strategic.js';
import { fixturePod } from '../../helpers/pod-fixture.js';

describe('strategic merge patch', () => {
  test('containers merge by name, env by name, volumeMounts by mountPath; new elements first; untagged lists replaced', () => {
    const out = applyStrategicMergePatch(fixturePod(), {
      spec: { containers: [{ name: 'c', command: ['other'], env: [{ name: 'B', value: '2' }], volumeMounts: [{ mountPath: '/w', name: 'w' }] }] },
    }, POD_PATCH_SCHEMA);
    expect(out.spec).toEqual({
      containers: [{ name: 'c', command: ['other'], env: [{ name: 'B', value: '2' }, { name: 'A', value: '1' }], volumeMounts: [{ mountPath: '/w', name: 'w' }, { name: 'v', mountPath: '/v' }] }],
      volumes: [{ name: 'v', hostPath: { path: '/v' } }],
    });
  });

  test('$patch: delete on an element and replace on a list', () => {
    const out = applyStrategicMergePatch(fixturePod(), { spec: { volumes: [{ name: 'v', $patch: 'delete' }], containers: [{ name: 'c', env: [{ $patch: 'replace' }, { name: 'Z', value: '0' }] }] } }, POD_PATCH_SCHEMA);
    expect(out.spec).toMatchObject({ volumes: [], containers: [{ env: [{ name: 'Z', value: '0' }] }] });
  });

  test('a list element without its merge key is an error', () => {
    expect(() => applyStrategicMergePatch(fixturePod(), { spec: { containers: [{ image: 'x' }] } }, POD_PATCH_SCHEMA)).toThrow(/does not contain declared merge key: name/);
  });

  test('without a schema, lists are replaced and objects merged (kubeletconfiguration)', () => {
    const out = applyStrategicMergePatch({ a: [1, 2], m: { x: 1 } }, { a: [3], m: { y: 2 } }, untyped());
    expect(out).toEqual({ a: [3], m: { x: 1, y: 2 } });
  });
});
