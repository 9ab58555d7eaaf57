import type { Reporter, TsadmEvent } from './events.js';

/** --output json: one JSON object per line on stdout (schema: docs/events.md). */
export class JsonReporter implements Reporter {
  constructor(private readonly stdout: NodeJS.WritableStream) {}

  emit(event: TsadmEvent): void {
    this.stdout.write(`${JSON.stringify(event)}\n`);
  }

  async close(): Promise<void> {}
}
