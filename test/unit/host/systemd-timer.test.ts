/**
 * The timer and service units, rendered pure; the expected keys and sections are those of
 * systemd.timer(5) and systemd.service(5) (no systemd on this machine to verify them with).
 */
import { renderTimerUnits } from '../../../src/host/systemd-timer.js';

const sections = (text: string): Record<string, Record<string, string[]>> => {
  const out: Record<string, Record<string, string[]>> = {};
  let cur = '';
  for (const line of text.split('\n')) {
    const s = /^\[(\w+)\]$/.exec(line);
    if (s) { cur = s[1] ?? ''; out[cur] = {}; continue; }
    const kv = /^(\w+)=(.*)$/.exec(line);
    if (kv) (out[cur]![kv[1]!] ??= []).push(kv[2]!);
  }
  return out;
};

describe('renderTimerUnits', () => {
  const units = renderTimerUnits({ name: 'tsadm-job', description: 'a job', execStart: '/usr/bin/tsadm certs renew --auto', onCalendar: 'daily', randomizedDelaySec: 3600, persistent: true });

  test('a oneshot service running the command, and a daily, randomized, persistent timer starting it', () => {
    expect(units.serviceName).toBe('tsadm-job.service');
    expect(units.timerName).toBe('tsadm-job.timer');
    expect(sections(units.service)).toEqual({
      Unit: { Description: ['a job'], Wants: ['network-online.target'], After: ['network-online.target'] },
      Service: { Type: ['oneshot'], ExecStart: ['/usr/bin/tsadm certs renew --auto'] },
    });
    expect(sections(units.timer)).toEqual({
      Unit: { Description: ['a job (timer)'] },
      Timer: { OnCalendar: ['daily'], RandomizedDelaySec: ['3600'], Persistent: ['true'], Unit: ['tsadm-job.service'] },
      Install: { WantedBy: ['timers.target'] },
    });
    expect(units.timer.endsWith('\n')).toBe(true);
  });

  test('an interval timer counts from boot and from the last start', () => {
    const t = sections(renderTimerUnits({ name: 'x', description: 'x', execStart: '/bin/true', onUnitActiveSec: '12h' }).timer);
    expect(t.Timer).toEqual({ OnBootSec: ['12h'], OnUnitActiveSec: ['12h'], Unit: ['x.service'] });
  });

  test('refuses what would make a broken or injected unit', () => {
    expect(() => renderTimerUnits({ name: 'a b', description: 'x', execStart: '/bin/true', onCalendar: 'daily' })).toThrow('invalid systemd unit name');
    expect(() => renderTimerUnits({ name: 'x', description: 'x', execStart: '/bin/true' })).toThrow('exactly one of');
    expect(() => renderTimerUnits({ name: 'x', description: 'x', execStart: '/bin/true\nExecStartPost=/bin/sh', onCalendar: 'daily' })).toThrow('cannot span lines');
  });
});
