import { formatRfc3339, parseRfc3339 } from '../../../src/token/rfc3339.js';

/**
 * What Go's `time.Parse(time.RFC3339, text)` returns for each input (src/time/format.go: the
 * layout "2006-01-02T15:04:05Z07:00" through Go's general parser, which the RFC3339 fast path
 * falls back to). Accepted cases give the instant in UTC and the offset in minutes; rejected ones
 * are errors in Go ("month out of range", "day out of range", "extra text", …).
 */
const ACCEPTED: readonly [string, string, number][] = [
  ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z', 0], // leap year
  ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00.000Z', 0], // divisible by 400: leap
  ['2024-12-31T23:59:59Z', '2024-12-31T23:59:59.000Z', 0],
  ['2024-01-02T03:04:05+05:30', '2024-01-01T21:34:05.000Z', 330],
  ['2024-01-02T03:04:05-07:00', '2024-01-02T10:04:05.000Z', -420],
  ['2024-01-02T03:04:05-00:00', '2024-01-02T03:04:05.000Z', 0],
  ['2024-01-02T03:04:05+24:00', '2024-01-01T03:04:05.000Z', 1440], // Go allows offset hour 24
  ['2024-01-02T03:04:05+01:60', '2024-01-02T01:04:05.000Z', 120], // …and offset minute 60
  ['2024-01-02T03:04:05.5Z', '2024-01-02T03:04:05.500Z', 0],
  ['2024-01-02T03:04:05.123456789123Z', '2024-01-02T03:04:05.123Z', 0], // any number of digits
  ['2024-01-02T03:04:05,25Z', '2024-01-02T03:04:05.250Z', 0], // Go reads a comma too
  ['2024-01-02T3:04:05Z', '2024-01-02T03:04:05.000Z', 0], // the hour may have one digit
  ['0000-01-01T00:00:00Z', '0000-01-01T00:00:00.000Z', 0],
  ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000Z', 0],
];

const REJECTED: readonly string[] = [
  '2024-13-45T25:61:61Z', // month out of range
  '2024-00-10T00:00:00Z', // month out of range
  '2024-02-30T00:00:00Z', // day out of range
  '2023-02-29T00:00:00Z', // not a leap year
  '1900-02-29T00:00:00Z', // divisible by 100, not 400
  '2024-04-31T00:00:00Z', // April has 30 days
  '2024-01-00T00:00:00Z', // day out of range
  '2024-01-02T24:00:00Z', // hour out of range
  '2024-01-02T23:60:00Z', // minute out of range
  '2024-12-31T23:59:60Z', // Go has no leap second
  '2024-01-02T03:04:05+25:00', // time zone offset hour out of range
  '2024-01-02T03:04:05+01:61', // time zone offset minute out of range
  '2024-01-02t03:04:05Z', // "T" is matched exactly
  '2024-01-02T03:04:05z', // so is "Z"
  '2024-01-02 03:04:05Z',
  '2024-01-02T03:04:05', // no zone
  '2024-01-02T03:04:05+0100',
  '2024-01-02T03:04:05.Z', // a fraction needs a digit
  '2024-01-02T03:04:05Z ', // extra text
  '24-01-02T03:04:05Z',
  '+2024-01-02T03:04:05Z',
  '2024-1-02T03:04:05Z',
  '2024-01-2T03:04:05Z',
  '2024-01-02T03:4:05Z',
  '2024-01-02T03:04:5Z',
  '',
];

describe('parseRfc3339 reads as Go time.Parse(time.RFC3339, …)', () => {
  test.each(ACCEPTED)('%s is %s at offset %i', (text, utc, offsetMinutes) => {
    const parsed = parseRfc3339(text);
    expect(parsed).toBeDefined();
    expect(new Date(parsed!.epochMs).toISOString()).toBe(utc);
    expect(parsed!.offsetMinutes).toBe(offsetMinutes);
    expect(Object.is(parsed!.offsetMinutes, -0)).toBe(false);
  });

  test.each(REJECTED.map((t) => [t]))('%j is rejected', (text) => {
    expect(parseRfc3339(text)).toBeUndefined();
  });

  test('years below 100 stay where they are (Date.UTC would make 0050 into 1950)', () => {
    const parsed = parseRfc3339('0050-06-15T12:00:00Z')!;
    expect(new Date(parsed.epochMs).getUTCFullYear()).toBe(50);
    expect(formatRfc3339(parsed.epochMs, 0)).toBe('0050-06-15T12:00:00Z');
    expect(parseRfc3339('0004-02-29T00:00:00Z')).toBeDefined(); // year 4 is a leap year
    expect(formatRfc3339(parseRfc3339('0099-12-31T23:00:00-02:00')!.epochMs, -120)).toBe('0099-12-31T23:00:00-02:00');
  });

  test('the text written back at its own offset is the text read, to the second', () => {
    for (const [text, , offset] of ACCEPTED.filter(([t]) => /T\d\d:\d\d:\d\d(Z|[+-](?!24)\d\d:(?!60)\d\d)$/.test(t))) {
      expect(formatRfc3339(parseRfc3339(text)!.epochMs, offset)).toBe(text.replace('-00:00', 'Z'));
    }
  });
});
