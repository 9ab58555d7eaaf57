/** How a failed command ends: one error line, details, the hint, the bug note, the stack from -v 2, the exit code. */
import { Writable } from 'node:stream';
import { reportError } from '../../../src/cli/report-error.js';
import { TsadmError } from '../../../src/errors.js';

function io(): { io: { stdout: Writable; stderr: Writable; stdin: NodeJS.ReadableStream; env: NodeJS.ProcessEnv }; err: () => string } {
  let text = '';
  const stderr = new Writable({ write(chunk: Buffer, _e, cb) { text += chunk.toString(); cb(); } });
  return { io: { stdout: new Writable({ write(_c, _e, cb) { cb(); } }), stderr, stdin: process.stdin, env: {} }, err: () => text };
}

describe('reportError', () => {
  test('a TsadmError: its line, details, hint; its exit code', () => {
    const { io: sink, err } = io();
    const code = reportError(new TsadmError('E_USAGE', 'bad flag', { details: ['bad flag', 'one more'], hint: 'leave it out' }), sink, 0);
    expect(code).toBe(3);
    expect(err()).toBe('error: bad flag\n  one more\nTo fix: leave it out\n');
  });

  test('anything else is an internal error (exit 1) with the bug note; -v 2 adds the stack', () => {
    const { io: sink, err } = io();
    expect(reportError(new Error('boom'), sink, 2)).toBe(1);
    expect(err()).toMatch(/^error: boom\nThis looks like a bug in tsadm; please report it with the output of the command run with -v 2\.\nError: boom\n\s+at /);
  });
});
