/**
 * The rule for a file whose content tsadm acts on as root (a plan `tsadm apply` carries out, a
 * snapshot a restore writes into etcd): as private as a key ssh would use. A regular file, owned by
 * root (or by the user running tsadm, as ssh allows), writable by nobody else (no group or world
 * write bit): else anyone who could write it could act as root. Pure; the callers stat the
 * descriptor they read (src/plan/file.ts, src/etcd-snapshot/files.ts).
 */
export interface FileStatus {
  readonly isFile: boolean;
  readonly mode: number;
  readonly uid: number;
}

/** Why a file with this status may not be acted on by user EUID (undefined: it may). */
export function privateFileProblem(st: FileStatus, euid: number): string | undefined {
  if (!st.isFile) return 'it is not a regular file';
  if (st.uid !== 0 && st.uid !== euid) return `it is owned by uid ${st.uid}, not by root`;
  if ((st.mode & 0o022) !== 0) return `it is writable by ${(st.mode & 0o002) !== 0 ? 'everyone' : 'its group'} (mode 0${(st.mode & 0o777).toString(8)})`;
  return undefined;
}
