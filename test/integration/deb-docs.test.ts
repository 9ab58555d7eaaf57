/**
 * Every documentation path tsadm's help names (and so the man pages, which scripts/package-deb.mjs
 * makes from the same help through scripts/lib/man.mjs) is one the Debian package installs
 * (scripts/lib/deb-docs.mjs), named at its installed place, never as a repository path.
 * Oracle: the help tree itself, walked as package-deb walks it for the man pages, and the files.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
// @ts-expect-error: plain JavaScript without types (jest loads it outside the TypeScript transform)
import { DOC_DIR as DOC_DIR_JS, docFiles as docFilesJs } from '../../scripts/lib/deb-docs.mjs';
// @ts-expect-error: plain JavaScript without types
import { subcommands as subcommandsJs } from '../../scripts/lib/man.mjs';

const DOC_DIR = DOC_DIR_JS as string;
const docFiles = docFilesJs as (repo: string) => { source: string; installed: string }[];
const subcommands = subcommandsJs as (help: string) => string[][];
const REPO = process.cwd();
/** package-deb.mjs's MAN_DEPTH: pages down to `tsadm init phase certs`. */
const MAN_DEPTH = 3;

test('every docs path the help of every man-paged command names is installed by the package, at the path named', async () => {
  const helps = new Map<string, string>();
  const visit = async (words: string[]): Promise<void> => {
    const r = await runCli([...words, '--help']);
    expect([words.join(' '), r.code]).toEqual([words.join(' '), 0]);
    helps.set(words.join(' '), r.stdout);
    const children = words.length < MAN_DEPTH ? subcommands(r.stdout).filter((c) => c.length === words.length + 1) : [];
    for (const c of children) await visit(c);
  };
  await visit([]);
  expect(helps.size).toBeGreaterThan(100);

  const installed = new Set(docFiles(REPO).map((f) => f.installed));
  const named = new Map<string, string>();
  const repoPaths: string[] = [];
  for (const [command, help] of helps) {
    const text = help.replace(/\n\s*/g, ' '); // a path yargs wrapped is one path again
    for (const m of text.matchAll(/(\S*)\bdocs\/[A-Za-z0-9_.-]+?\.md/g)) {
      const full = m[0].replace(/^[("'`]+/, '');
      if (full.startsWith(`${DOC_DIR}/`)) named.set(full, command);
      else repoPaths.push(`tsadm ${command}: ${full}`);
    }
  }
  expect(repoPaths).toEqual([]);
  // The help names several docs (-o json's events, --plan's plans, the host phase, certs, safety).
  expect(named.size).toBeGreaterThanOrEqual(4);
  for (const [doc, command] of named) {
    expect([doc, command, installed.has(doc)]).toEqual([doc, command, true]);
  }
}, 600_000);

test('the package\'s documentation list is README, CHANGELOG and every docs/*.md, each a file of the repository', () => {
  const files = docFiles(REPO);
  expect(files.map((f) => f.source)).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/events.md', 'docs/plan.md', 'docs/host.md']));
  for (const f of files) {
    expect(existsSync(path.join(REPO, f.source))).toBe(true);
    expect(f.installed).toBe(`${DOC_DIR}/${f.source}`);
  }
  expect(DOC_DIR).toBe('/usr/share/doc/tsadm');
});
