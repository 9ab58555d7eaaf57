import { neutralised } from './escape.js';
import type { Reporter, TsadmEvent } from './events.js';

export interface PlainReporterOptions {
  readonly verbosity: number;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

/**
 * kubeadm-style lines: `[certs] Generating "ca" certificate and key` on stdout, warnings on
 * stderr as `[WARNING] …`. -v 1 adds skipped phases and decisions; -v 2 adds commands and API calls.
 */
export class PlainReporter implements Reporter {
  constructor(private readonly opts: PlainReporterOptions) {}

  emit(event: TsadmEvent): void {
    if (event.type === 'output') {
      this.opts.stdout.write(event.text);
      return;
    }
    const line = formatPlain(event, this.opts.verbosity);
    if (line === undefined) return;
    const stream = event.type === 'log' && (event.level === 'warn' || event.level === 'error') ? this.opts.stderr : this.opts.stdout;
    stream.write(`${line}\n`);
  }

  async close(): Promise<void> {}
}

/**
 * Pure: the line for an event at a verbosity, or undefined when it is not shown. Control
 * characters other than newline and tab are shown escaped (src/log/escape.ts): the last line of
 * defence when a message carries a value from a request, a Node or a file that its writer did not
 * quote. Raw `output` events are not lines and are not touched (the user asked for those bytes).
 */
export function formatPlain(event: TsadmEvent, verbosity: number): string | undefined {
  const line = plainLine(event, verbosity);
  return line === undefined ? undefined : neutralised(line);
}

function plainLine(event: TsadmEvent, verbosity: number): string | undefined {
  switch (event.type) {
    case 'log': {
      if (event.verbosity > verbosity) return undefined;
      const prefix = event.prefix ?? topLevel(event.phase);
      const tag = prefix ? `[${prefix}] ` : '';
      if (event.level === 'warn') return event.message.startsWith('[WARNING') ? `${tag}${event.message}` : `[WARNING] ${tag}${event.message}`;
      if (event.level === 'error') return `[ERROR] ${tag}${event.message}`;
      return `${tag}${event.message}`;
    }
    case 'phase-finish':
      if (event.status === 'skipped' && verbosity >= 1) return `[${event.phase}] Skipping phase: ${event.reason ?? 'not selected'}`;
      if (verbosity >= 2) return `[${event.phase}] ${event.status} after ${event.durationMs} ms`;
      return undefined;
    case 'phase-start':
      return verbosity >= 2 ? `[${event.phase}] starting` : undefined;
    case 'file':
      return verbosity >= 1 ? `[${topLevel(event.phase) ?? 'files'}] ${event.dryRun ? 'would write' : event.unchanged ? 'unchanged' : 'wrote'} ${event.path} (${event.mode})` : undefined;
    case 'object':
      return verbosity >= 1 ? `[${topLevel(event.phase) ?? 'api'}] ${event.action} ${event.kind} ${event.namespace ? `${event.namespace}/` : ''}${event.name}` : undefined;
    case 'result':
    case 'plan':
    case 'output':
      return undefined;
  }
}

function topLevel(phase: string | undefined): string | undefined {
  return phase?.split('/')[0];
}
