/**
 * Everything tsadm tells the user is an event; reporters (plain lines, listr2 on a TTY, NDJSON
 * with --output json) decide how to show it. Phases never print.
 */
type Level = 'info' | 'warn' | 'error' | 'debug';

export type TsadmEvent =
  | { readonly type: 'phase-start'; readonly phase: string; readonly ts: string }
  | { readonly type: 'phase-finish'; readonly phase: string; readonly ts: string; readonly durationMs: number; readonly status: 'ok' | 'failed' | 'skipped'; readonly reason?: string }
  | { readonly type: 'log'; readonly phase?: string; readonly ts: string; readonly level: Level; readonly verbosity: number; readonly prefix?: string; readonly message: string }
  | { readonly type: 'file'; readonly phase?: string; readonly ts: string; readonly path: string; readonly mode: string; readonly kind: string; readonly sha256: string; readonly unchanged: boolean; readonly dryRun: boolean }
  | { readonly type: 'object'; readonly phase?: string; readonly ts: string; readonly action: 'created' | 'updated' | 'unchanged' | 'deleted' | 'would-create' | 'would-update'; readonly kind: string; readonly namespace?: string; readonly name: string }
  | { readonly type: 'output'; readonly ts: string; readonly text: string }
  | { readonly type: 'plan'; readonly ts: string; readonly phases: readonly string[] }
  | { readonly type: 'result'; readonly ts: string; readonly command: string; readonly ok: boolean; readonly data?: Readonly<Record<string, unknown>>; readonly error?: { readonly code: string; readonly message: string; readonly hint?: string } };

export interface Reporter {
  emit(event: TsadmEvent): void;
  /** Flush and release the terminal. */
  close(): Promise<void>;
}

export interface Logger {
  info(message: string, opts?: { prefix?: string; verbosity?: number }): void;
  warn(message: string, opts?: { prefix?: string }): void;
  debug(message: string, opts?: { prefix?: string; verbosity?: number }): void;
  /** Raw output the user asked for (e.g. a token, a YAML document); goes to stdout untouched. */
  output(text: string): void;
  event(event: TsadmEvent): void;
}

/** The `error` of a failed command's result event: a TsadmError's code, message and hint (E_INTERNAL for anything else). */
export function errorData(err: unknown): { code: string; message: string; hint?: string } {
  const e = err as { code?: string; message?: string; hint?: string };
  return { code: e.code ?? 'E_INTERNAL', message: e.message ?? String(err), ...(e.hint ? { hint: e.hint } : {}) };
}
