import { TSADM_VERSION } from '../version.js';
import type { Reporter, TsadmEvent } from '../log/events.js';
import { buildPlan } from './build.js';
import { writePlanFile } from './file.js';
import type { PlanJournal } from '../host/journal.js';

export interface PlanRequest {
  /** Where to write the plan (relative to the working directory). */
  readonly file: string;
  /** False with --plan-without-keys: a review copy with secrets replaced by hashes. */
  readonly keys: boolean;
  readonly rootfs: string;
  readonly startTime: Date;
}

/**
 * `--plan <file>`: passes every event on, remembers the phases that ran and the command's
 * result, and when the command closes its reporter after a successful run, writes the plan from
 * the dry-run journal. Living at the reporter seam (which every workflow command opens through
 * createRuntime and closes in its `finally`) is what gives init, join, reset and every single
 * phase a plan without any of them knowing about plans.
 */
export class PlanReporter implements Reporter {
  private readonly phases: string[] = [];
  private result: Extract<TsadmEvent, { type: 'result' }> | undefined;

  constructor(private readonly inner: Reporter, private readonly journal: PlanJournal, private readonly request: PlanRequest) {}

  emit(event: TsadmEvent): void {
    if (event.type === 'phase-finish' && event.status === 'ok') this.phases.push(event.phase);
    if (event.type === 'result') {
      this.result = event;
      if (event.ok) this.writeNotice();
    }
    this.inner.emit(event);
  }

  async close(): Promise<void> {
    try {
      if (this.result?.ok) {
        const { dryRun: _dryRun, ...data } = this.result.data ?? {};
        const plan = buildPlan(this.journal, {
          command: this.result.command,
          phases: this.phases,
          rootfs: this.request.rootfs,
          createdAt: this.request.startTime,
          tsadmVersion: TSADM_VERSION,
          result: data,
        }, { keys: this.request.keys });
        await writePlanFile(this.request.file, plan);
      }
    } finally {
      await this.inner.close();
    }
  }

  /** Said before the result line so a JSON consumer sees it in the stream too. */
  private writeNotice(): void {
    const steps = this.journal.steps.length;
    const what = this.request.keys
      ? 'it contains private keys and secrets: mode 0600, keep it safe and delete it after `tsadm apply`'
      : 'review copy: secrets replaced by sha256, `tsadm apply` refuses it';
    this.inner.emit({
      type: 'log', ts: new Date().toISOString(), level: 'info', verbosity: 0, prefix: 'plan',
      message: `Writing the plan (${steps} step${steps === 1 ? '' : 's'}) to ${this.request.file}; ${what}`,
    });
  }
}
