/**
 * Help as kubeadm users expect it (issue 40): each command's own flags before the global ones, no
 * line wrapped to column 0, `init --help` short enough to read at 100 columns. The CLI runs
 * in-process with a stdout that has no `columns`, so its help is 100 columns wide (buildCli).
 */
import { ownFlagsFirst, optionExtras } from '../../../src/cli/help-layout.js';
import { KLOG_GROUP } from '../../../src/flags.js';
import { runCli } from '../../helpers/cli.js';

const WIDTH = 100;

async function help(words: readonly string[]): Promise<string> {
  const r = await runCli([...words, '--help']);
  expect([words.join(' '), r.code, r.stderr]).toEqual([words.join(' '), 0, '']);
  return r.stdout;
}

/**
 * The lines of a help text that a wrap sent to column 0: in yargs' sections (a heading like
 * "Options:" up to the blank line) every entry and continuation is indented; in a phase tree a line
 * at column 0 is a phase row (name, two spaces or more, summary) or a heading. Prose (the note
 * under a tree, in parentheses) is a paragraph: its lines start at column 0 as it does.
 */
function wrappedToColumnZero(text: string): string[] {
  const bad: string[] = [];
  let section: 'flags' | 'tree' | 'prose' | undefined;
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (section !== 'tree') section = undefined;
      continue;
    }
    if (/^(Commands|Options|Global Flags|Positionals|Examples):$/.test(line)) section = 'flags';
    else if (/executes the following phases:$|^Phases:$/.test(line)) section = 'tree';
    else if (section === 'tree' && /^(\(|Each phase)/.test(line)) section = 'prose';
    else if (section === 'flags' && !line.startsWith(' ')) bad.push(line);
    else if (section === 'tree' && !line.startsWith(' ') && !/^[a-z0-9-]+ {2,}\S/.test(line) && !/:$/.test(line)) bad.push(line);
  }
  return bad;
}

describe('the order of flag groups', () => {
  test('ownFlagsFirst: the command\'s groups, then its ungrouped flags, the global group last', () => {
    const ordered = ownFlagsFirst({ [KLOG_GROUP]: ['log-file'], 'Positionals:': ['shell'] });
    expect(Object.keys(ordered)).toEqual(['Positionals:', 'Options:', KLOG_GROUP]);
    expect(ordered[KLOG_GROUP]).toEqual(['log-file']);
    expect(Object.keys(ownFlagsFirst({ 'Options:': ['x'] }))).toEqual(['Options:']);
  });

  test.each([['init'], ['join'], ['token', 'create'], ['certs', 'renew'], ['version'], []])('tsadm %s --help: own flags, then Global Flags last', async (...words) => {
    const text = await help(words.filter(Boolean));
    const own = text.indexOf('\nOptions:\n');
    const global = text.indexOf(`\n${KLOG_GROUP}\n`);
    expect(own).toBeGreaterThan(0);
    expect(global).toBeGreaterThan(own);
    // Nothing but the examples and the epilog after the global flags: no other flag group.
    expect(text.slice(global + 1).split('\n\n').slice(1).join('\n\n')).not.toMatch(/^ +-/m);
  });
});

describe('wrapping at 100 columns', () => {
  test.each([
    [['init']], [['join']], [['reset']], [['init', 'phase']], [['init', 'phase', 'certs']], [['init', 'phase', 'host']],
    [['upgrade', 'apply']], [['upgrade', 'apply', 'phase']], [['token', 'create']], [['certs', 'check-expiration']], [[]],
  ])('tsadm %j --help: no line wider than 100 columns, none wrapped to column 0', async (words) => {
    const text = await help(words);
    expect(text.split('\n').filter((l) => l.trimEnd().length > WIDTH)).toEqual([]);
    expect(wrappedToColumnZero(text)).toEqual([]);
  });

  test('the detector finds what yargs did before: a phase summary continued at column 0', () => {
    expect(wrappedToColumnZero('Phases:\nkubeconfig    Generate all kubeconfig files necessary to establish the control\nplane and the admin kubeconfig file\n')).toEqual(['plane and the admin kubeconfig file']);
    expect(wrappedToColumnZero('Options:\n  --plan  Write a plan\nof every change\n')).toEqual(['of every change']);
  });
});

describe('tsadm init --help', () => {
  test('at most 130 lines at 100 columns; every phase still named; the summaries in `init phase --help`', async () => {
    const text = await help(['init']);
    expect(text.split('\n').length).toBeLessThanOrEqual(130);
    expect(text).toContain('Each phase with its summary and flags: tsadm init phase [<phase>] --help');
    const phases = await help(['init', 'phase']);
    // A child's summary is in `init phase --help`, its name (not the summary) in `init --help`.
    expect(phases).toMatch(/\/apiserver-kubelet-client +Generate the certificate for the API server to connect to kubelet/);
    expect(text).toMatch(/^ {2}.*\/apiserver-kubelet-client /m);
    expect(text).not.toContain('Generate the certificate for the API server to connect to kubelet');
  });

  test('--experimental-patches is accepted as --patches and kept out of the help (its column made every description narrower)', async () => {
    const text = await help(['init', 'phase', 'control-plane', 'all']);
    expect(text).toContain('--patches');
    expect(text).not.toContain('experimental-patches');
  });
});

test('optionExtras: defaults, choices, required and deprecation at the end of the description; no type', () => {
  expect(optionExtras({ type: 'string', defaultDescription: '/etc/kubernetes' })).toBe('[default: /etc/kubernetes]');
  expect(optionExtras({ type: 'string', choices: ['text', 'json'], default: 'text' })).toBe('[choices: "text", "json"] [default: "text"]');
  expect(optionExtras({ type: 'boolean', demandOption: true, deprecated: 'use --x' })).toBe('[deprecated: use --x] [required]');
  expect(optionExtras({ type: 'string' })).toBe('');
});
