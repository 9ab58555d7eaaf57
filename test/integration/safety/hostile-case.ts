/**
 * The hostile-input corpus (test/fixtures/hostile/cases/*.yaml): one data file per case, read
 * and checked here; hostile.test.ts runs each through the built CLI.
 *
 * A case:
 *   about:   what is hostile about it (one line)
 *   args:    the command line; "{config}" is the case's config file (or the standard one),
 *            "{root}" the rootfs, "{outside}" a directory beside it, "{pki}" the foreign PKI
 *            fixtures; "--rootfs {root}" is appended unless `rootfs: false`
 *   config | config_base64 | config_repeat: {text, times}   the --config file's content
 *   setup:   steps that prepare the rootfs (see Step)
 *   readonly: host paths bind-mounted read-only for the run
 *   expect:  a regular expression the one "error:" line must match (it names the problem)
 *   exit:    the exit status (3 = bad config/usage, 1 = refused at run time)
 *   requires: a command that must exist (e.g. join), else the case is skipped, visibly
 *   gap:     a known hole, with its owner: the case is expected to fail (jest's test.failing)
 *            until the hole is fixed, when it starts passing and the marker must go
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { REPO } from '../../helpers/built-cli.js';

const HOSTILE_DIR = path.join(REPO, 'test', 'fixtures', 'hostile');
const CASES_DIR = path.join(HOSTILE_DIR, 'cases');
export const PKI_DIR = path.join(HOSTILE_DIR, 'pki');

export type Step =
  | { baseline: 'pki' | 'local-init' }
  | { copy: { from: string; to: string; mode?: string } }
  | { write: { path: string; content: string; mode?: string } }
  | { symlink: { path: string; target: string } }
  | { truncate: { path: string; size: number } }
  | { replace: { path: string; pattern: string; with: string } }
  | { mkdir: { path: string; mode?: string } }
  | { remove: { path: string } }
  | { fifo: { path: string } }
  | { outside: { name: string; content: string } };

export interface HostileCase {
  readonly file: string;
  readonly about: string;
  readonly args: readonly string[];
  readonly rootfs: boolean;
  readonly config?: string;
  readonly configBase64?: string;
  readonly configRepeat?: { text: string; times: number };
  readonly setup: readonly Step[];
  readonly readonly: readonly string[];
  readonly expect: RegExp;
  readonly exit: number;
  readonly requires?: string;
  readonly gap?: string;
}

const KEYS = new Set(['about', 'args', 'rootfs', 'config', 'config_base64', 'config_repeat', 'setup', 'readonly', 'expect', 'exit', 'requires', 'gap']);
const STEPS = new Set(['baseline', 'copy', 'write', 'symlink', 'truncate', 'replace', 'mkdir', 'remove', 'fifo', 'outside']);

/** Parses and checks one case file; a malformed case fails loudly rather than testing nothing. */
function parseCase(file: string, text: string): HostileCase {
  const doc = yaml.load(text) as Record<string, unknown>;
  const bad = (why: string): Error => new Error(`${file}: ${why}`);
  if (!doc || typeof doc !== 'object') throw bad('not a mapping');
  for (const k of Object.keys(doc)) if (!KEYS.has(k)) throw bad(`unknown key ${k}`);
  if (typeof doc.about !== 'string' || doc.about.includes('\n')) throw bad('about must be one line');
  if (!Array.isArray(doc.args) || doc.args.some((a) => typeof a !== 'string')) throw bad('args must be a list of strings');
  if (typeof doc.expect !== 'string') throw bad('expect is required');
  if (typeof doc.exit !== 'number' || doc.exit === 0) throw bad('exit must be a non-zero number');
  const setup = (doc.setup ?? []) as Step[];
  for (const step of setup) {
    const keys = Object.keys(step);
    if (keys.length !== 1 || !STEPS.has(keys[0] as string)) throw bad(`bad setup step ${JSON.stringify(step)}`);
  }
  const repeat = doc.config_repeat as { text?: unknown; times?: unknown } | undefined;
  return {
    file,
    about: doc.about,
    args: doc.args as string[],
    rootfs: doc.rootfs !== false,
    ...(typeof doc.config === 'string' ? { config: doc.config } : {}),
    ...(typeof doc.config_base64 === 'string' ? { configBase64: doc.config_base64 } : {}),
    ...(repeat ? { configRepeat: { text: String(repeat.text), times: Number(repeat.times) } } : {}),
    setup,
    readonly: (doc.readonly ?? []) as string[],
    expect: new RegExp(doc.expect),
    exit: doc.exit,
    ...(typeof doc.requires === 'string' ? { requires: doc.requires } : {}),
    ...(typeof doc.gap === 'string' ? { gap: doc.gap } : {}),
  };
}

export function loadCases(): HostileCase[] {
  return readdirSync(CASES_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => parseCase(f, readFileSync(path.join(CASES_DIR, f), 'utf8')));
}

/** The case's category: the file name's prefix ("config-…", "flags-…", "rootfs-…", …). */
export function categoryOf(c: HostileCase): string {
  return c.file.split('-')[0] ?? 'other';
}
