import type { Logger, Reporter, TsadmEvent } from './events.js';

/** A logger bound to the phase currently running; the runner moves it between phases. */
export class PhaseLogger implements Logger {
  phase: string | undefined;

  constructor(
    private readonly reporter: Reporter,
    private readonly now: () => Date = () => new Date(),
  ) {}

  info(message: string, opts: { prefix?: string; verbosity?: number } = {}): void {
    this.log('info', message, opts.prefix, opts.verbosity ?? 0);
  }

  warn(message: string, opts: { prefix?: string } = {}): void {
    this.log('warn', message, opts.prefix, 0);
  }

  debug(message: string, opts: { prefix?: string; verbosity?: number } = {}): void {
    this.log('debug', message, opts.prefix, opts.verbosity ?? 1);
  }

  output(text: string): void {
    this.reporter.emit({ type: 'output', ts: this.ts(), text: text.endsWith('\n') ? text : `${text}\n` });
  }

  event(event: TsadmEvent): void {
    this.reporter.emit(event);
  }

  ts(): string {
    return this.now().toISOString();
  }

  private log(level: 'info' | 'warn' | 'debug', message: string, prefix: string | undefined, verbosity: number): void {
    this.reporter.emit({
      type: 'log',
      ts: this.ts(),
      level,
      verbosity,
      message,
      ...(this.phase !== undefined ? { phase: this.phase } : {}),
      ...(prefix !== undefined ? { prefix } : {}),
    });
  }
}
