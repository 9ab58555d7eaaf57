/**
 * An unknown flag is named as typed, with the command's closest flag and the command's own help
 * (issue 40), where yargs said "Unknown argument: pod-network-cidrr".
 */
import { closestFlag, dashed, unknownFlagMessage } from '../../../src/cli/unknown-flag.js';
import { runCli } from '../../helpers/cli.js';

const KNOWN = ['pod-network-cidr', 'service-cidr', 'token', 'token-ttl', 'v', 'help', 'output', 'o'];

test('closestFlag: within three edits, the nearest; a one-letter flag is no suggestion for a long name', () => {
  expect(closestFlag('pod-network-cidrr', KNOWN)).toBe('pod-network-cidr');
  expect(closestFlag('tokn', KNOWN)).toBe('token');
  expect(closestFlag('token-tll', KNOWN)).toBe('token-ttl');
  expect(closestFlag('frobnicate', KNOWN)).toBeUndefined();
  expect(closestFlag('vv', ['v', 'vmodule'])).toBeUndefined();
  expect(dashed('v')).toBe('-v');
  expect(dashed('token')).toBe('--token');
});

test('unknownFlagMessage: dashes, the near match, the command\'s help; yargs\' other messages are left alone', () => {
  expect(unknownFlagMessage('Unknown argument: pod-network-cidrr', ['init', '--pod-network-cidrr', '10.0.0.0/16'], KNOWN, 'init'))
    .toBe("unknown flag --pod-network-cidrr; did you mean --pod-network-cidr? See 'tsadm init --help'");
  expect(unknownFlagMessage('Unknown argument: pod-network-cidrr', ['init', '--pod-network-cidrr=10.0.0.0/16'], KNOWN, 'init'))
    .toBe("unknown flag --pod-network-cidrr; did you mean --pod-network-cidr? See 'tsadm init --help'");
  expect(unknownFlagMessage('Unknown argument: x', ['init', '-x'], KNOWN, 'init')).toBe("unknown flag -x; see 'tsadm init --help'");
  expect(unknownFlagMessage('Unknown argument: such-flag', ['init', '--no-such-flag'], KNOWN, 'init phase certs all'))
    .toBe("unknown flag --no-such-flag; see 'tsadm init phase certs all --help'");
  expect(unknownFlagMessage('Unknown arguments: tokn, zzz', ['join', '--tokn', 'a', '--zzz'], KNOWN, 'join'))
    .toBe("unknown flags --tokn (did you mean --token?), --zzz; see 'tsadm join --help'");
  // A stray positional ("completion bash zsh") is not a flag: yargs' message stays.
  expect(unknownFlagMessage('Unknown argument: zsh', ['completion', 'bash', 'zsh'], KNOWN, 'completion')).toBeUndefined();
  expect(unknownFlagMessage('Did you mean certs?', ['init', 'phase', 'certz'], KNOWN, 'init phase')).toBeUndefined();
});

test.each<[string[], string]>([
  [['init', '--pod-network-cidrr', '10.244.0.0/16'], "error: unknown flag --pod-network-cidrr; did you mean --pod-network-cidr? See 'tsadm init --help'\n"],
  [['join', '10.0.0.1:6443', '--tokn', 'abcdef.0123456789abcdef'], "error: unknown flag --tokn; did you mean --token? See 'tsadm join --help'\n"],
  [['init', 'phase', 'certs', 'all', '--csr-onyl'], "error: unknown flag --csr-onyl; did you mean --csr-only? See 'tsadm init phase certs all --help'\n"],
  [['token', 'create', '--ttll', '1h'], "error: unknown flag --ttll; did you mean --ttl? See 'tsadm token create --help'\n"],
])('through the CLI: tsadm %j exits 3 with one line', async (args, stderr) => {
  const r = await runCli(args);
  expect([r.code, r.stdout, r.stderr]).toEqual([3, '', stderr]);
});

test('other usage errors point at the command\'s own help too', async () => {
  const r = await runCli(['init', 'phase', 'certz']);
  expect(r.stderr).toBe('error: Unknown argument: certz (did you mean certs?)\nTo fix: see tsadm init phase --help\n');
});
