// Runs a command under /usr/bin/time and returns wall/CPU/peak-RSS with its output.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const TIME = '/usr/bin/time';
const MARK = 'BENCH-TIME';

export function requireGnuTime() {
  if (!existsSync(TIME)) throw new Error(`${TIME} is missing: apt-get install time (scripts/e2e/provision.sh installs it)`);
}

/** The GNU time prefix; its report is the last stderr line starting with MARK. */
export function timePrefix() {
  return [TIME, '-f', `${MARK} %e %U %S %M`];
}

/**
 * Spawns CMD, returning { code, stdout, stderr, wallMs (measured here, high resolution),
 * innerWallMs (GNU time's %e, inside any namespace wrapper), cpuMs (user+sys), maxRssMb }.
 */
export function timed(cmd, args, { env, cwd, timeoutMs = 15 * 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(cmd, args, { env: env ?? process.env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
      const line = stderr.split('\n').reverse().find((l) => l.startsWith(MARK));
      const [e, u, s, m] = line ? line.slice(MARK.length).trim().split(/\s+/).map(Number) : [NaN, NaN, NaN, NaN];
      resolve({
        code,
        stdout,
        stderr: line ? stderr.replace(line, '') : stderr,
        wallMs,
        innerWallMs: e * 1000,
        cpuMs: (u + s) * 1000,
        maxRssMb: m / 1024,
      });
    });
  });
}

/** Throws with the command's output when it failed. */
export function check(r, what) {
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${(r.stdout + r.stderr).split('\n').slice(-40).join('\n')}`);
  return r;
}

/** 1-minute load average, to record how busy the shared machine was. */
export function load1() {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}
