/**
 * The timer renderer, with systemd's own tool as the oracle where it runs here: systemd-analyze
 * normalises the calendar expressions to the schedule asked for and `verify` accepts the units.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { everyToOnCalendar, renderTimerUnits, systemdQuote } from '../../../src/host/systemd-timer.js';

const analyze = existsSync('/usr/bin/systemd-analyze') ? test : test.skip;

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
