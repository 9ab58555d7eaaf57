/**
 * The one skeleton every command runs in (src/workflows/run-command.ts): the runtime flags read
 * from the command line, one result event (ok or the error, with what a failure carries), the
 * error rethrown for main, everything closed however the handler ends; and a scan of src/ that
 * fails when a command opens or closes a runtime itself.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { captureIo } from '../../helpers/cli.js';
import { runCommand, type CommandSpec } from '../../../src/workflows/run-command.js';
import { DryRunHost } from '../../../src/host/dry-run-host.js';
import type { Runtime } from '../../../src/run/runtime.js';

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});
function newRoot(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-rc-'));
  roots.push(dir);
  return dir;
}

interface Seen { rt?: Runtime; apiClosed: boolean; reporterClosed: boolean }

async function run(spec: Omit<CommandSpec, 'env'>, body: (rt: Runtime) => Promise<Record<string, unknown> | void>) {
  const { io, out } = captureIo();
  const seen: Seen = { apiClosed: false, reporterClosed: false };
  const error = await runCommand({ ...spec, env: { io } }, async (rt) => {
    seen.rt = rt;
    const closeApi = rt.api.close.bind(rt.api);
    (rt.api as { close: () => void }).close = () => { seen.apiClosed = true; closeApi(); };
    const closeReporter = rt.reporter.close.bind(rt.reporter);
    (rt.reporter as { close: () => Promise<void> }).close = () => { seen.reporterClosed = true; return closeReporter(); };
    return body(rt);
  }).then(() => undefined, (e: unknown) => e);
  const events = out().trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  return { seen, error, events };
}

describe('runCommand', () => {
  test('reads the runtime flags from the command line, sends one ok result with the data, and closes everything', async () => {
    const r = await run({ command: 'demo', args: { rootfs: newRoot(), output: 'json', 'dry-run': true, other: 'x' } }, () => Promise.resolve({ n: 1 }));
    expect(r.error).toBeUndefined();
    expect(r.seen.rt?.dryRun).toBe(true);
    expect(r.seen.rt?.host).toBeInstanceOf(DryRunHost);
    expect(r.events.filter((e) => e.type === 'result')).toEqual([expect.objectContaining({ command: 'demo', ok: true, data: { n: 1 } })]);
    expect(r.seen).toMatchObject({ apiClosed: true, reporterClosed: true });
  });

  test('a failure is the result event (with the failure data), rethrown, and everything is still closed', async () => {
    const boom = Object.assign(new Error('boom'), { code: 'E_PRECONDITION' });
    const r = await run({ command: 'demo', args: { rootfs: newRoot(), output: 'json' }, failureData: () => ({ checks: [1] }) }, () => Promise.reject(boom));
    expect(r.error).toBe(boom);
    const results = r.events.filter((e) => e.type === 'result');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ command: 'demo', ok: false, data: { checks: [1] }, error: { code: 'E_PRECONDITION', message: 'boom' } });
    expect(r.seen).toMatchObject({ apiClosed: true, reporterClosed: true });
  });

  test('without a command name no result event is sent; afterResult follows the ok result', async () => {
    const quiet = await run({ args: { rootfs: newRoot(), output: 'json' } }, (rt) => { rt.log.info('hello'); return Promise.resolve({ n: 1 }); });
    expect(quiet.events.some((e) => e.type === 'result')).toBe(false);
    expect(quiet.events.length).toBeGreaterThan(0);
    const order: string[] = [];
    const after = await run({ command: 'demo', args: { rootfs: newRoot(), output: 'json' }, afterResult: (_rt, data) => order.push(`after ${String(data.n)}`) }, () => { order.push('handler'); return Promise.resolve({ n: 2 }); });
    expect(order).toEqual(['handler', 'after 2']);
    expect(after.events.at(-1)).toMatchObject({ type: 'result', ok: true });
  });

  test('eventOutput: false leaves a print format\'s -o out of the runtime (plain lines, not events)', async () => {
    const r = captureIo();
    await runCommand({ env: { io: r.io }, args: { rootfs: newRoot(), output: 'json' }, eventOutput: false }, (rt) => { rt.log.output('plain'); return Promise.resolve(); });
    expect(r.out()).toBe('plain\n');
  });

  test('a handler error is not swallowed when the runtime cannot even open (a bad --output is the usage error)', async () => {
    const { io } = captureIo();
    await expect(runCommand({ env: { io }, args: { output: 'yaml' } }, () => Promise.resolve())).rejects.toThrow('invalid --output "yaml"');
  });
});

/** Every .ts file under src/, with its text. */
function sources(): { file: string; text: string }[] {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src');
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ file: `src/${f.split(path.sep).join('/')}`, text: readFileSync(path.join(root, f), 'utf8') }));
}

/** A runtime opened (createRuntime called) or closed (its reporter, or its API seam as `rt.api`). */
const RUNTIME_OPEN_CLOSE = /\bcreateRuntime\(|\.reporter\.close\(|\brt\.api\.close\(/;
/** Where opening and closing a runtime belongs: its definition and the one skeleton. */
const RUNTIME_OWNERS = new Set(['src/run/runtime.ts', 'src/workflows/run-command.ts']);

describe('no command opens or closes the runtime itself', () => {
  test('the pattern finds the hand-written skeleton it forbids', () => {
    expect(RUNTIME_OPEN_CLOSE.test('const rt = await createRuntime(flags, env);')).toBe(true);
    expect(RUNTIME_OPEN_CLOSE.test('  } finally {\n    rt.api.close();\n    await rt.reporter.close();')).toBe(true);
    expect(RUNTIME_OPEN_CLOSE.test('await runCommand({ command, env, args: argv }, fn);')).toBe(false);
    // The scan sees the skeleton itself (so it reads the real files).
    expect(sources().filter((s) => RUNTIME_OPEN_CLOSE.test(s.text)).map((s) => s.file)).toContain('src/workflows/run-command.ts');
  });

  test('only src/run/runtime.ts and src/workflows/run-command.ts create or close a runtime', () => {
    const offenders = sources().filter((s) => !RUNTIME_OWNERS.has(s.file) && RUNTIME_OPEN_CLOSE.test(s.text)).map((s) => s.file);
    expect(offenders).toEqual([]);
  });
});
