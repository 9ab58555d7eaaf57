import { PassThrough } from 'node:stream';
import { PlainReporter, formatPlain } from '../../../src/log/plain-reporter.js';

const ts = '2026-01-01T00:00:00Z';

/**
 * kubeadm-style lines, and the last line of defence: a message that still carries a control
 * character (a value from a request, a Node or a file its writer did not quote) reaches the
 * terminal escaped; the newline and tab tsadm's own lines use stay.
 */
describe('formatPlain', () => {
  test('kubeadm\'s lines are unchanged: prefix, warnings, multi-line messages with tabs', () => {
    expect(formatPlain({ type: 'log', ts, level: 'info', verbosity: 0, prefix: 'certs', message: 'Generating "ca" certificate and key' }, 0)).toBe('[certs] Generating "ca" certificate and key');
    expect(formatPlain({ type: 'log', ts, level: 'warn', verbosity: 0, phase: 'preflight', message: 'swap is on' }, 0)).toBe('[WARNING] [preflight] swap is on');
    expect(formatPlain({ type: 'log', ts, level: 'info', verbosity: 0, message: 'Your Kubernetes control-plane has initialized successfully!\n\n\tkubeadm join …' }, 0))
      .toBe('Your Kubernetes control-plane has initialized successfully!\n\n\tkubeadm join …');
  });

  test('ESC, CR, C1 controls and bidi overrides in a message are shown escaped, not acted on', () => {
    const line = formatPlain({ type: 'log', ts, level: 'info', verbosity: 0, prefix: 'csr', message: 'Denying "w1\x1b[2J\r\x9b2K\u202e"' }, 0);
    expect(line).toBe('[csr] Denying "w1\\x1b[2J\\r\\u009b2K\\u202e"');
  });

  test('an object\'s name and a file\'s path are neutralised too', () => {
    expect(formatPlain({ type: 'object', ts, action: 'created', kind: 'ConfigMap', namespace: 'kube-system', name: 'x\x1b]0;title\x07' }, 1)).toBe('[api] created ConfigMap kube-system/x\\x1b]0;title\\a');
    expect(formatPlain({ type: 'file', ts, path: '/etc/\x1b[1mx', mode: '0600', kind: 'file', sha256: '', unchanged: false, dryRun: false }, 1)).toBe('[files] wrote /etc/\\x1b[1mx (0600)');
  });
});

test('PlainReporter writes the neutralised line; raw output the user asked for goes out untouched', () => {
  const out = new PassThrough();
  const err = new PassThrough();
  const r = new PlainReporter({ verbosity: 0, stdout: out, stderr: err });
  r.emit({ type: 'log', ts, level: 'warn', verbosity: 0, prefix: 'csr', message: 'x\n[csr] Approving\x1b[2J' });
  r.emit({ type: 'output', ts, text: 'apiVersion: v1\n' });
  expect(String(err.read())).toBe('[WARNING] [csr] x\n[csr] Approving\\x1b[2J\n');
  expect(String(out.read())).toBe('apiVersion: v1\n');
});
