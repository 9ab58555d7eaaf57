import { checkDuration, formatDuration, parseDuration } from '../../src/duration.js';

const H = 3_600_000;

describe('parseDuration (Go time.ParseDuration)', () => {
  test.each([
    ['24h0m0s', 24 * H],
    ['4m0s', 240_000],
    ['1h', H],
    ['0', 0],
    ['0s', 0],
    ['1h30m', 1.5 * H],
    ['1.5h', 1.5 * H],
    ['.5s', 500],
    ['1.s', 1000],
    ['300ms', 300],
    ['2us', 0.002],
    ['2µs', 0.002],
    ['100ns', 0.0001],
    ['-1m', -60_000],
    ['+5s', 5000],
    ['87600h0m0s', 87600 * H],
  ])('%s → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 9);
  });

  test.each([
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['10', 'time: missing unit in duration "10"'],
    ['', 'time: invalid duration ""'],
    ['h', 'time: invalid duration "h"'],
    ['4 minutes', 'time: unknown unit " minutes" in duration "4 minutes"'],
    ['.', 'time: invalid duration "."'],
  ])('%j is refused: %s', (text, message) => {
    expect(checkDuration(text)).toBe(message);
    expect(() => parseDuration(text)).toThrow(message);
  });
});

describe('formatDuration (Go Duration.String)', () => {
  test.each([
    [0, '0s'],
    [24 * H, '24h0m0s'],
    [240_000, '4m0s'],
    [H, '1h0m0s'],
    [90_000, '1m30s'],
    [1500, '1.5s'],
    [300, '300ms'],
    [1.5, '1.5ms'],
    [0.002, '2µs'],
    [0.0001, '100ns'],
    [-60_000, '-1m0s'],
    [87600 * H, '87600h0m0s'],
    [8760 * H, '8760h0m0s'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  test('round-trips', () => {
    for (const text of ['24h0m0s', '4m0s', '1m30s', '1.5s', '300ms', '0s', '2h5m7.25s']) expect(formatDuration(parseDuration(text))).toBe(text);
  });
});
