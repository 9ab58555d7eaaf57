/**
 * The listr2 task view against the installed listr2: it loads, runs one task per planned phase
 * (listr2 falls back to its line renderer off a terminal, writing to process.stdout), and prints
 * what the user must read after the list, warnings to stderr.
 */
import { jest } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { ListrReporter } from '../../../src/log/listr-reporter.js';

const ts = '2026-01-01T00:00:00Z';

function collect(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

test('runs the planned phases as listr2 tasks, then prints output and warnings', async () => {
  const listrLines: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    listrLines.push(String(chunk));
    return true;
  });
  const out = collect();
  const err = collect();
  const r = new ListrReporter(out.stream, err.stream);
  try {
    r.emit({ type: 'plan', ts, phases: ['preflight', 'certs/ca', 'certs/apiserver'] });
    r.emit({ type: 'phase-start', ts, phase: 'preflight' });
    r.emit({ type: 'phase-finish', ts, phase: 'preflight', durationMs: 1, status: 'ok' });
    r.emit({ type: 'phase-start', ts, phase: 'certs/ca' });
    r.emit({ type: 'log', ts, phase: 'certs/ca', level: 'warn', verbosity: 0, prefix: 'certs', message: 'WARNING: the CA expires soon' });
    r.emit({ type: 'phase-finish', ts, phase: 'certs/ca', durationMs: 1, status: 'skipped', reason: 'exists' });
    r.emit({ type: 'output', ts, text: 'kubeadm join 10.0.0.1:6443 --token abc\n' });
    // certs/apiserver never finishes: close() settles it as "not run".
    await r.close();
  } finally {
    spy.mockRestore();
  }
  const shown = listrLines.join('');
  expect(shown).toContain('preflight');
  expect(shown).toContain('certs');
  expect(shown).toContain('ca (skipped: exists)');
  expect(shown).toContain('apiserver (skipped: not run)');
  expect(out.text()).toBe('kubeadm join 10.0.0.1:6443 --token abc\n');
  expect(err.text()).toBe('[certs] WARNING: the CA expires soon\n');
});

test('a message carrying ESC or other controls is printed neutralised (the terminal view\'s last line of defence)', async () => {
  const out = collect();
  const err = collect();
  const r = new ListrReporter(out.stream, err.stream);
  r.emit({ type: 'log', ts, level: 'info', verbosity: 0, prefix: 'csr', message: 'Denying "w1\x1b[2J\u202e"' });
  r.emit({ type: 'log', ts, level: 'warn', verbosity: 0, prefix: 'csr', message: 'WARNING: "\x9b31m"\r' });
  await r.close();
  expect(out.text()).toBe('[csr] Denying "w1\\x1b[2J\\u202e"\n');
  expect(err.text()).toBe('[csr] WARNING: "\\u009b31m"\\r\n');
});
