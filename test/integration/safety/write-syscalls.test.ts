/**
 * "No file is ever seen half-written, no key ever has looser permissions, even transiently",
 * proven from the system calls of a real node-local init (strace): every file under the rootfs
 * is created as an O_EXCL|O_NOFOLLOW temp file whose creation mode already is the final mode
 * (the umask can only tighten it), only ever fchmod'ed to that mode, and reaches its name by
 * rename(2) — nothing opens a final path for writing, nothing chmods a path.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TSADM, cliEnv,  localInitArgs, scratchDir, snapshot, type Scratch } from '../../helpers/built-cli.js';
import { describeWithOracles, oracles } from '../../helpers/oracle.js';


interface Call {
  readonly name: string;
  readonly args: string;
}

/** Syscalls of the traced run that name a path under ROOT (first line of unfinished calls). */
function callsUnder(trace: string, root: string): Call[] {
  const out: Call[] = [];
  for (const line of trace.split('\n')) {
    const m = /^\d+\s+(\w+)\((.*)$/.exec(line);
    if (m && m[2]?.includes(root)) out.push({ name: m[1] as string, args: m[2] });
  }
  return out;
}

const quoted = (args: string): string[] => [...args.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] as string);

/** `.<name>.tsadm-<pid>-<hex>` → `<name>` (atomic-write's temp naming). */
function targetOfTemp(p: string): string | undefined {
  const m = /^(.*\/)\.([^/]+)\.tsadm-\d+-[0-9a-f]{12}$/.exec(p);
  return m ? `${m[1]}${m[2]}` : undefined;
}

let s: Scratch;
beforeEach(() => {
  s = scratchDir('tsadm-strace-');
});
afterEach(() => s.cleanup());

describeWithOracles([oracles.built, oracles.strace])('the write path, seen by strace', () => {
  test('temp file at the final mode from creation, then rename; nothing written in place', () => {
    const trace = path.join(s.dir, 'trace.txt');
    const root = path.join(s.dir, 'root');
    execFileSync('mkdir', [root]);
    execFileSync('strace', ['-f', '-s', '4096', '-e', 'trace=%file,fchmod', '-e', 'signal=none', '-o', trace, process.execPath, TSADM, ...localInitArgs(root)], {
      env: cliEnv(),
      stdio: 'ignore',
    });
    const calls = callsUnder(readFileSync(trace, 'utf8'), root);
    const final = snapshot(root);
    const finalMode = (p: string): number | undefined => final.get(p.slice(root.length))?.mode;

    const problems: string[] = [];
    const createdTemps = new Map<string, number>(); // temp path -> creation mode
    const renamedTo = new Set<string>();
    for (const c of calls) {
      const [p = '', p2 = ''] = quoted(c.args);
      if (c.name === 'openat' || c.name === 'open' || c.name === 'creat') {
        const writes = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/.test(c.args);
        if (!writes) continue;
        const isLockTemp = /\/\.tsadm\.lock\.\d+\.[0-9a-f]{8}$/.test(p);
        if (!targetOfTemp(p) && !isLockTemp) problems.push(`opened for writing in place: ${p}`);
        if (!/O_CREAT/.test(c.args) || !/O_EXCL/.test(c.args) || !/O_NOFOLLOW/.test(c.args)) problems.push(`not O_CREAT|O_EXCL|O_NOFOLLOW: ${p}`);
        const mode = Number.parseInt(/,\s*(0\d+)\)/.exec(c.args)?.[1] ?? 'NaN', 8);
        if (!isLockTemp) createdTemps.set(p, mode);
      } else if (c.name === 'rename' || c.name === 'renameat' || c.name === 'renameat2') {
        const target = targetOfTemp(p);
        if (target !== p2 && !p.includes('.tsadm.lock')) problems.push(`unexpected rename ${p} -> ${p2}`);
        renamedTo.add(p2);
        const want = finalMode(p2);
        const created = createdTemps.get(p);
        if (created === undefined) problems.push(`renamed a file it did not create: ${p}`);
        else if (want !== undefined && created !== want) problems.push(`${p2}: temp created ${created.toString(8)}, final ${want.toString(8)}`);
      } else if (c.name === 'chmod' || c.name === 'fchmodat') {
        // RootedHost.mkdir chmods the directories it creates; a file is never chmod'ed by path.
        if (final.get(p.slice(root.length))?.type !== 'dir') problems.push(`chmod on a path: ${c.name}(${c.args}`);
      }
    }
    // fchmod takes a descriptor: its modes must be final modes of written files (0600/0644).
    const allFinal = new Set([...final.values()].filter((e) => e.type === 'file').map((e) => e.mode));
    for (const line of readFileSync(trace, 'utf8').split('\n')) {
      const m = /^\d+\s+fchmod\(\d+, (0\d+)\)/.exec(line);
      if (m && !allFinal.has(Number.parseInt(m[1] as string, 8))) problems.push(`fchmod to ${m[1]}`);
    }
    for (const [p, e] of final) {
      if (e.type === 'file' && !renamedTo.has(`${root}${p}`)) problems.push(`${p} did not arrive by rename`);
      if (e.type === 'file' && /\.(key|conf)$/.test(p) && e.mode !== 0o600) problems.push(`${p} is ${e.mode.toString(8)}`);
    }
    // Secrets were 0600 from their creation: their temps were created 0600.
    const secretTemps = [...createdTemps].filter(([p]) => /\.(key|conf)$/.test(targetOfTemp(p) ?? ''));
    expect(secretTemps.length).toBe(11 + 4); // 10 certificate keys and sa.key, 4 kubeconfigs
    for (const [p, mode] of secretTemps) if (mode !== 0o600) problems.push(`${p} created ${mode.toString(8)}`);
    expect(problems).toEqual([]);
    expect(renamedTo.size).toBe([...final.values()].filter((e) => e.type === 'file').length);
  });
});
