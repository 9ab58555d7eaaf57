/**
 * One error type for everything tsadm reports to the user. The code decides the exit status
 * (kubeadm's convention, so existing automation keeps working); the message is one line that
 * says what was wrong, the hint says how to fix it.
 */
export type ErrorCode =
  | 'E_CONFIG_INVALID' // bad --config / flag values (exit 3)
  | 'E_USAGE' // bad command line (exit 3)
  | 'E_PREFLIGHT' // a preflight check failed (exit 2)
  | 'E_PRECONDITION' // something a phase needs is missing (exit 1)
  | 'E_CONFLICT' // existing file/object differs from what tsadm would write (exit 1)
  | 'E_TIMEOUT' // waited too long for a component (exit 1)
  | 'E_EXEC' // a host program failed (exit 1)
  | 'E_API' // the Kubernetes API refused or failed (exit 1)
  | 'E_TRUST' // discovery could not establish trust (exit 1)
  | 'E_LOCKED' // another tsadm holds the machine lock (exit 1)
  | 'E_INTERNAL'; // a bug in tsadm (exit 1)

const EXIT_CODES: Readonly<Record<ErrorCode, number>> = {
  E_CONFIG_INVALID: 3,
  E_USAGE: 3,
  E_PREFLIGHT: 2,
  E_PRECONDITION: 1,
  E_CONFLICT: 1,
  E_TIMEOUT: 1,
  E_EXEC: 1,
  E_API: 1,
  E_TRUST: 1,
  E_LOCKED: 1,
  E_INTERNAL: 1,
};

/** Exit status when interrupted by SIGINT/SIGTERM. */
export const EXIT_INTERRUPTED = 130;

export interface TsadmErrorOptions {
  hint?: string;
  cause?: unknown;
  /** Extra lines (e.g. every config validation error); printed one per line. */
  details?: readonly string[];
}

export class TsadmError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly details: readonly string[];

  constructor(code: ErrorCode, message: string, options: TsadmErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TsadmError';
    this.code = code;
    if (options.hint !== undefined) this.hint = options.hint;
    this.details = options.details ?? [];
  }

  get exitCode(): number {
    return EXIT_CODES[this.code];
  }
}

export function isTsadmError(err: unknown): err is TsadmError {
  return err instanceof TsadmError;
}

/** Message of any thrown value, for wrapping foreign errors into one line. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
