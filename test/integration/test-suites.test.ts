/**
 * scripts/test-suites.sh, `npm test`'s last step: the unit and e2e projects run at the same time,
 * the unit output is printed as one block (never interleaved line by line with e2e's), and the
 * exit status fails when either project failed. A stand-in `npm` on PATH plays both projects: it
 * records when each started and ended and exits as told, so the test sees the overlap itself.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SCRIPT = path.resolve('scripts/test-suites.sh');

// `npm run --silent test:unit|test:e2e`: prints a few lines with pauses, notes start and end times.
const FAKE_NPM = `#!/usr/bin/env bash
project=\${3#test:}
echo "start $project $(date +%s%N)" >> "$SUITES_TRACE"
for i in 1 2 3; do echo "$project line $i"; sleep 0.3; done
echo "end $project $(date +%s%N)" >> "$SUITES_TRACE"
rc_var="\${project^^}_RC"
exit "\${!rc_var:-0}"
`;

function run(unitRc: number, e2eRc: number) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tsadm-suites-'));
  try {
    writeFileSync(path.join(dir, 'npm'), FAKE_NPM);
    chmodSync(path.join(dir, 'npm'), 0o755);
    const trace = path.join(dir, 'trace');
    const r = spawnSync('bash', [SCRIPT], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${dir}:${process.env.PATH ?? ''}`, SUITES_TRACE: trace, UNIT_RC: String(unitRc), E2E_RC: String(e2eRc) },
    });
    const times = Object.fromEntries(readFileSync(trace, 'utf8').trim().split('\n').map((l) => {
      const [what, project, ns] = l.split(' ');
      return [`${what} ${project}`, Number(BigInt(ns ?? '0') / 1_000_000n)];
    }));
    const at = (event: string): number => {
      const t = times[event];
      if (t === undefined) throw new Error(`the stand-in npm did not record "${event}"`);
      return t;
    };
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, at };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('scripts/test-suites.sh', () => {
  test('the two projects overlap in time, and both outputs are shown', () => {
    const r = run(0, 0);
    expect(r.status).toBe(0);
    // each project started before the other ended
    expect(r.at('start unit')).toBeLessThan(r.at('end e2e'));
    expect(r.at('start e2e')).toBeLessThan(r.at('end unit'));
    expect(r.stdout).toContain('e2e line 3');
    expect(r.stderr).toMatch(/==== unit project \(ran alongside e2e\): exit 0 ====\nunit line 1\nunit line 2\nunit line 3\n==== end of unit project ====/);
  });

  test.each([[1, 0], [0, 1], [2, 3]])('unit exit %d, e2e exit %d: the step fails and says which', (unitRc, e2eRc) => {
    const r = run(unitRc, e2eRc);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`unit project: exit ${unitRc}; e2e project: exit ${e2eRc}`);
  });

  test('the script is what npm test runs last', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test).toMatch(/&& npm run test:suites$/);
    expect(pkg.scripts['test:suites']).toBe('bash scripts/test-suites.sh');
    expect(execFileSync('bash', ['-n', SCRIPT], { encoding: 'utf8' })).toBe('');
  });
});
