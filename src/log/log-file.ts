/**
 * kubeadm's klog flags, and `--log-file` writing the log there. kubeadm accepts `--log-file`,
 * `--log-file-max-size`, `--skip-headers`, `--skip-log-headers`, `--add-dir-header` and
 * `--one-output` on every command (klog's flags, cmd/kubeadm/app/kubeadm.go), so scripts
 * written for kubeadm pass them. Lines are klog's: `I1125 14:27:04.894396   30166 tsadm] msg`,
 * with "tsadm" where klog names the Go source file (tsadm has none to name, so --add-dir-header
 * has nothing to add); --one-output only matters for klog's per-severity files, which tsadm
 * does not write. The file is opened once and appended to (mode 0600: a log of a root tool).
 *
 * Trust (decision 48 in docs/decisions.md): the file is opened without following a symbolic link (O_NOFOLLOW; a link
 * planted at the path would send a root tool's log anywhere), must be a regular file of this user,
 * and is forced to 0600 even when it existed with a looser mode. Bootstrap tokens and certificate
 * keys are written as `<redacted>` (kubeadm prints them only to stdout, which keeps them); the
 * flag --log-file-secrets writes them as they are.
 */
import { closeSync, constants, fchmodSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { TsadmError, errorMessage } from '../errors.js';
import type { Reporter, TsadmEvent } from './events.js';
import { formatPlain } from './plain-reporter.js';

export interface LogFileSettings {
  readonly file: string;
  /** Megabytes; 0 means unlimited (klog's default is 1800). */
  readonly maxSizeMb: number;
  /** --skip-headers: no `I1125 14:27:04.894396 pid tsadm]` prefix on each line. */
  readonly skipHeaders: boolean;
  /** --skip-log-headers: no "Log file created at:" block when the file is opened. */
  readonly skipLogHeaders: boolean;
  /** --log-file-secrets: write bootstrap tokens and certificate keys as they are (else `<redacted>`). */
  readonly secrets?: boolean;
}

/** What a redacted secret is written as. */
const REDACTED = '<redacted>';

/**
 * Pure: TEXT with every bootstrap token ([a-z0-9]{6}.[a-z0-9]{16}, kubeadm's format) and every
 * certificate key or CA rotation key (64 hex characters after --certificate-key, --rotation-key
 * or certificateKey, or alone on a line, as upload-certs and `certs rotate-ca start` print them)
 * replaced by `<redacted>`. sha256 digests (the CA hash after `sha256:`, file digests inside a
 * sentence) are not secrets and stay.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(/(?<![a-z0-9])[a-z0-9]{6}\.[a-z0-9]{16}(?![a-z0-9])/g, REDACTED)
    .replace(/(--(?:certificate|rotation)-key[= ]+|certificate[-_ ]?key["']?\s*[:=]\s*["']?)[0-9a-f]{64}(?![0-9a-f])/gi, `$1${REDACTED}`)
    .replace(/^(\s*)[0-9a-f]{64}(\s*)$/gim, `$1${REDACTED}$2`);
}

/** Pure: klog's line prefix ("I1125 14:27:04.894396   30166 tsadm] ") in the host's local time. */
export function klogPrefix(severity: 'I' | 'W' | 'E', at: Date, pid: number): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const micros = p(at.getMilliseconds(), 3) + '000';
  return `${severity}${p(at.getMonth() + 1)}${p(at.getDate())} ${p(at.getHours())}:${p(at.getMinutes())}:${p(at.getSeconds())}.${micros} ${String(pid).padStart(7)} tsadm] `;
}

/** Pure: klog's block at the top of a log file it opens (unless --skip-log-headers). */
export function klogFileHeader(at: Date, machine: string, binary: string): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  const when = `${at.getFullYear()}/${p(at.getMonth() + 1)}/${p(at.getDate())} ${p(at.getHours())}:${p(at.getMinutes())}:${p(at.getSeconds())}`;
  return `Log file created at: ${when}\nRunning on machine: ${machine}\nBinary: ${binary}\nLog line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg\n`;
}

/** Pure: the log file's line for an event at a verbosity (what the plain reporter shows), or undefined. */
export function logFileLine(event: TsadmEvent, verbosity: number, skipHeaders: boolean, at: Date, pid: number, keepSecrets = false): string | undefined {
  const shown = formatPlain(event, verbosity);
  if (shown === undefined) return undefined;
  const text = keepSecrets ? shown : redactSecrets(shown);
  if (skipHeaders) return `${text}\n`;
  const severity = event.type === 'log' && event.level === 'warn' ? 'W' : event.type === 'log' && event.level === 'error' ? 'E' : 'I';
  return `${klogPrefix(severity, at, pid)}${text}\n`;
}

/** An open log file: klog's header block first, then one line per shown event. */
export class LogFile {
  private fd: number | undefined;
  private size: number;

  private constructor(
    fd: number,
    private readonly settings: LogFileSettings,
    private readonly now: () => Date,
  ) {
    this.fd = fd;
    this.size = fstatSync(fd).size;
  }

  /** `binary` is what klog's header says built the program, e.g. "tsadm 0.1.0 (Node.js v20.19.0) for linux/amd64". */
  static open(settings: LogFileSettings, binary: string, now: () => Date = () => new Date()): LogFile {
    let fd: number;
    try {
      // O_NOFOLLOW: a symbolic link at the path is refused, never followed; O_NONBLOCK: a FIFO cannot hang the open.
      fd = openSync(settings.file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code === 'ELOOP' ? 'it is a symbolic link (tsadm does not follow one to write its log)' : errorMessage(err);
      throw new TsadmError('E_USAGE', `--log-file ${settings.file}: cannot open it: ${why}`, { hint: 'pass a file in an existing, writable directory' });
    }
    try {
      const st = fstatSync(fd);
      const euid = process.geteuid?.() ?? st.uid;
      if (!st.isFile()) throw new TsadmError('E_USAGE', `--log-file ${settings.file}: not a regular file`, { hint: 'pass the path of a regular file (it is created when absent)' });
      if (st.uid !== euid) {
        throw new TsadmError('E_USAGE', `--log-file ${settings.file}: it is owned by uid ${st.uid}, not by the user running tsadm; refusing to write a root tool's log into it`, {
          hint: 'remove it or pass another path',
        });
      }
      // An existing file keeps no looser mode: the log of a root tool is 0600.
      if ((st.mode & 0o7777) !== 0o600) fchmodSync(fd, 0o600);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    const log = new LogFile(fd, settings, now);
    if (!settings.skipLogHeaders) log.append(klogFileHeader(now(), hostname(), binary));
    return log;
  }

  write(event: TsadmEvent, verbosity: number): void {
    const line = logFileLine(event, verbosity, this.settings.skipHeaders, this.now(), process.pid, this.settings.secrets === true);
    if (line !== undefined) this.append(line);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private append(text: string): void {
    if (this.fd === undefined) return;
    const bytes = Buffer.from(text);
    const max = this.settings.maxSizeMb * 1024 * 1024;
    // klog starts the named file over when it would grow past the limit.
    if (max > 0 && this.size + bytes.length >= max) {
      ftruncateSync(this.fd, 0);
      this.size = 0;
    }
    writeSync(this.fd, bytes);
    this.size += bytes.length;
  }
}

/** A reporter that also writes what it is given to the log file, and closes the file with itself. */
export function teeToLogFile(inner: Reporter, log: LogFile, verbosity: number): Reporter {
  return {
    emit: (event) => {
      inner.emit(event);
      log.write(event, verbosity);
    },
    close: async () => {
      try {
        await inner.close();
      } finally {
        log.close();
      }
    },
  };
}
