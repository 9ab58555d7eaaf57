import { neutralised } from './escape.js';
import type { Reporter, TsadmEvent } from './events.js';

interface Deferred {
  readonly promise: Promise<{ skipped?: string }>;
  resolve(v: { skipped?: string }): void;
  reject(e: Error): void;
}

function deferred(): Deferred {
  let resolve!: Deferred['resolve'];
  let reject!: Deferred['reject'];
  const promise = new Promise<{ skipped?: string }>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

type TaskHandle = { output: string; skip(msg?: string): void; title: string };

/**
 * The terminal view: a listr2 task list of the phases that will run (from the `plan` event),
 * grouped by top-level phase, each line showing the phase's latest message while it runs.
 * Warnings and raw output are kept and printed after the list, so nothing the user must read
 * (join commands, warnings) is lost in the redraws. Loaded only on a TTY.
 */
export class ListrReporter implements Reporter {
  private readonly pending = new Map<string, Deferred>();
  private readonly tasks = new Map<string, TaskHandle>();
  private readonly after: string[] = [];
  private done: Promise<unknown> = Promise.resolve();
  private current: string | undefined;

  constructor(private readonly stdout: NodeJS.WritableStream, private readonly stderr: NodeJS.WritableStream) {}

  emit(event: TsadmEvent): void {
    switch (event.type) {
      case 'plan':
        this.start(event.phases);
        return;
      case 'phase-start':
        this.current = event.phase;
        return;
      case 'phase-finish': {
        const d = this.pending.get(event.phase);
        if (!d) return;
        if (event.status === 'failed') d.reject(new Error(`${event.phase} failed`));
        else d.resolve(event.status === 'skipped' ? { skipped: event.reason ?? 'skipped' } : {});
        return;
      }
      case 'log': {
        // The last line of defence, as in the plain reporter: no control character a message
        // still carries reaches the terminal (src/log/escape.ts).
        const message = neutralised(event.message);
        if (event.level === 'warn' || event.level === 'error') {
          this.after.push(`[${event.prefix ?? event.phase?.split('/')[0] ?? 'tsadm'}] ${message}`);
          return;
        }
        if (event.verbosity > 0) return;
        const task = this.current ? this.tasks.get(this.current) : undefined;
        if (task) task.output = message;
        else if (this.pending.size === 0) this.stdout.write(`[${event.prefix ?? 'tsadm'}] ${message}\n`);
        return;
      }
      case 'output':
        this.after.push(event.text.replace(/\n$/, ''));
        return;
      default:
        return;
    }
  }

  async close(): Promise<void> {
    for (const d of this.pending.values()) d.resolve({ skipped: 'not run' });
    await this.done;
    for (const line of this.after) (line.startsWith('[') && line.includes('WARNING') ? this.stderr : this.stdout).write(`${line}\n`);
  }

  private start(phases: readonly string[]): void {
    const groups = new Map<string, string[]>();
    for (const p of phases) {
      const top = p.split('/')[0] as string;
      groups.set(top, [...(groups.get(top) ?? []), p]);
      this.pending.set(p, deferred());
    }
    this.done = import('listr2').then(async ({ Listr }) => {
      const leafTask = (path: string, title: string) => ({
        title,
        task: async (_ctx: unknown, task: TaskHandle) => {
          this.tasks.set(path, task);
          const result = await (this.pending.get(path) as Deferred).promise;
          if (result.skipped) task.skip(`${title} (skipped: ${result.skipped})`);
        },
      });
      const list = [...groups].map(([top, leaves]) =>
        leaves.length === 1 && leaves[0] === top
          ? leafTask(top, top)
          : {
              title: top,
              task: (_ctx: unknown, task: { newListr: (t: unknown[], o: unknown) => unknown }) =>
                task.newListr(leaves.map((l) => leafTask(l, l.slice(top.length + 1))), { concurrent: false, exitOnError: true }),
            },
      );
      const listr = new Listr(list as never, { concurrent: false, exitOnError: true, rendererOptions: { collapseSubtasks: false, collapseSkips: false } });
      await listr.run().catch(() => undefined);
    });
  }
}
