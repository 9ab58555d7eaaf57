/**
 * Every file under test/fixtures/config/bad must be refused with E_CONFIG_INVALID, and the error
 * must contain each "# expect:" fragment (they name the field path). Optional headers:
 * "# command: init|join|reset", "# flags: {json}", "# endpoint: host:port".
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FlagValues } from '../../../src/flags.js';
import { resolveInitConfig, resolveJoinConfig, resolveResetConfig } from '../../../src/config/load.js';
import { isTsadmError } from '../../../src/errors.js';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/config/bad');
const env = { hostname: 'cp1', defaultAdvertiseAddress: '192.168.10.11', now: new Date('2024-01-01T00:00:00Z') };

interface Case {
  readonly file: string;
  readonly text: string;
  readonly command: string;
  readonly expects: string[];
  readonly flags: FlagValues;
  readonly endpoint?: string;
}

function header(text: string, key: string): string[] {
  return [...text.matchAll(new RegExp(`^# ${key}: (.*)$`, 'gm'))].map((m) => (m[1] ?? '').trim());
}

const cases: Case[] = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((file) => {
    const text = readFileSync(path.join(dir, file), 'utf8');
    const endpoint = header(text, 'endpoint')[0];
    return {
      file,
      text,
      command: header(text, 'command')[0] ?? 'init',
      expects: header(text, 'expect'),
      flags: JSON.parse(header(text, 'flags')[0] ?? '{}') as FlagValues,
      ...(endpoint !== undefined ? { endpoint } : {}),
    };
  });

/** Files whose kubernetesVersion is the fault under test, so their target is the default (v1.37.0). */
const UNPINNED = ['wrong-type-version-number.yaml'];

function run(c: Case): void {
  const input = { configText: c.text, configPath: c.file, flags: { config: c.file, ...c.flags }, env };
  if (c.command === 'join') resolveJoinConfig({ ...input, ...(c.endpoint !== undefined ? { apiServerEndpoint: c.endpoint } : {}) });
  else if (c.command === 'reset') resolveResetConfig(input);
  else resolveInitConfig(input);
}

test('there are at least 30 bad inputs, each with an expectation', () => {
  expect(cases.length).toBeGreaterThanOrEqual(30);
  for (const c of cases) expect({ file: c.file, expects: c.expects.length > 0 }).toEqual({ file: c.file, expects: true });
});

test.each(cases.map((c) => [c.file, c] as const))('%s is refused naming the field', (_file, c) => {
  let caught: unknown;
  try {
    run(c);
  } catch (err) {
    caught = err;
  }
  expect(isTsadmError(caught)).toBe(true);
  if (!isTsadmError(caught)) return;
  expect(caught.code).toBe('E_CONFIG_INVALID');
  const lines = [caught.message, ...caught.details];
  // One line per problem: no embedded newlines.
  for (const line of caught.details) expect(line).not.toContain('\n');
  for (const fragment of c.expects) {
    expect({ fragment, found: lines.some((l) => l.includes(fragment)) ? true : lines }).toEqual({ fragment, found: true });
  }
  // Each file is refused for what it tests: the v1beta2/v1beta3 ones pin a target that reads them
  // (v1.34.1), unless the API version is what they test or their kubernetesVersion is the fault.
  if (!c.expects.some((e) => e.includes('is not supported for Kubernetes')) && !UNPINNED.includes(c.file)) {
    expect({ file: c.file, apiVersionRefused: lines.filter((l) => l.includes('is not supported for Kubernetes')) }).toEqual({ file: c.file, apiVersionRefused: [] });
  }
});
