/**
 * The one timer renderer (src/host/systemd-timer.ts). The expected keys and sections are those of
 * systemd.timer(5) and systemd.service(5); where systemd-analyze is installed (the oracle gate
 * fails under CI=true without it), it normalises the calendar expressions to the schedule asked for
 * and `verify` accepts the units.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { everyToOnCalendar, renderTimerUnits, systemdQuote } from '../../../src/host/systemd-timer.js';
import { oracles, testWithOracles } from '../../helpers/oracle.js';

const analyze = testWithOracles([oracles.systemdAnalyze]);

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

describe('systemd timer units', () => {
  const units = renderTimerUnits({
    name: 'tsadm-x', description: 'x job', execStart: ['/bin/true a', '/bin/true b'],
    onCalendar: '*-*-* 00/12:00:00', randomizedDelaySec: '15min', persistent: true,
  });

  test('the service is a oneshot running every command; the timer is calendar-based, persistent, randomized', () => {
    expect(units.service.split('\n')).toEqual(expect.arrayContaining(['Type=oneshot', 'ExecStart=/bin/true a', 'ExecStart=/bin/true b']));
    expect(units.timer.split('\n')).toEqual(expect.arrayContaining([
      'OnCalendar=*-*-* 00/12:00:00', 'RandomizedDelaySec=15min', 'Persistent=true', 'Unit=tsadm-x.service', 'WantedBy=timers.target',
    ]));
    const mono = renderTimerUnits({ name: 'm', description: 'm', execStart: ['/bin/true'], onUnitActiveSec: '7h' });
    expect(mono.timer).toContain('OnBootSec=7h\nOnUnitActiveSec=7h\n');
    expect(mono.timer).not.toContain('Persistent');
    expect(() => renderTimerUnits({ name: 'm', description: 'a\nb', execStart: [], onCalendar: 'daily' })).toThrow(/span lines/);
  });

  analyze('systemd-analyze verify accepts both units', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-units-'));
    try {
      writeFileSync(path.join(dir, 'tsadm-x.service'), units.service);
      writeFileSync(path.join(dir, 'tsadm-x.timer'), units.timer);
      const r = spawnSync('systemd-analyze', ['verify', path.join(dir, 'tsadm-x.timer'), path.join(dir, 'tsadm-x.service')], { encoding: 'utf8' });
      expect(`${r.stderr}`.split('\n').filter((l) => /tsadm-x/.test(l))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  analyze.each([
    ['12h', /00:00:00|12:00:00/, 12 * 3600],
    ['6h', /(00|06|12|18):00:00/, 6 * 3600],
    ['30m', /:(00|30):00/, 1800],
    ['24h', /00:00:00/, 86400],
  ])('--every %s is a calendar expression systemd runs at that period', (every, at, periodSec) => {
    const expr = everyToOnCalendar(every);
    expect(expr).toBeDefined();
    const out = execFileSync('systemd-analyze', ['calendar', '--iterations=3', expr!], { encoding: 'utf8' });
    const times = [...out.matchAll(/(?:Next elapse|Iter\. #\d+): \w+ (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) UTC/g)].map((m) => Date.parse(`${m[1]!.replace(' ', 'T')}Z`));
    expect(times).toHaveLength(3);
    expect(times[1]! - times[0]!).toBe(periodSec * 1000);
    expect(times[2]! - times[1]!).toBe(periodSec * 1000);
    expect(out).toMatch(at);
  });

  test('periods that do not divide a day are not calendar expressions', () => {
    for (const every of ['7h', '45m', '2d', '0h', 'often', '12']) expect(everyToOnCalendar(every)).toBeUndefined();
  });

  test('arguments are quoted for ExecStart only when needed', () => {
    expect(systemdQuote('/usr/local/bin/tsadm')).toBe('/usr/local/bin/tsadm');
    expect(systemdQuote('/my dir/x')).toBe('"/my dir/x"');
  });
});
