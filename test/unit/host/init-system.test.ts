/**
 * The one detection of the init system (src/host/init-system.ts): $TSADM_SERVICE_MANAGER wins,
 * then a running systemd, else none.
 */
import { detectInitSystem } from '../../../src/host/init-system.js';

test('TSADM_SERVICE_MANAGER when set, even where systemd runs', () => {
  expect(detectInitSystem({ TSADM_SERVICE_MANAGER: '/opt/sm' }, () => true)).toEqual({ kind: 'manager', program: '/opt/sm' });
});

test('systemd when it runs and no manager is named; an empty variable names none', () => {
  expect(detectInitSystem({}, () => true)).toEqual({ kind: 'systemd' });
  expect(detectInitSystem({ TSADM_SERVICE_MANAGER: '' }, () => true)).toEqual({ kind: 'systemd' });
});

test('none without either', () => {
  expect(detectInitSystem({}, () => false)).toEqual({ kind: 'none' });
});
