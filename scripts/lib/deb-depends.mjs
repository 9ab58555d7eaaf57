// The package's Depends (scripts/package-deb.mjs): dpkg-shlibdeps names the libraries, and libc6's
// minimum is what the executable actually needs, the highest GLIBC_x.y in its ELF version needs.
//
// Why not dpkg-shlibdeps' libc6 as is: Node's binary is linked against libdl.so.2 and libpthread.so.0,
// whose symbols glibc 2.34 moved into libc.so.6; Debian's symbols file dates every symbol of those two
// stubs 2.34, so dpkg-shlibdeps asks libc6 (>= 2.34) although the binary binds none of their symbols
// (dpkg-shlibdeps says so: "could avoid a useless dependency … libpthread.so.0 (it uses none of the
// library's symbols)") and its highest glibc symbol version is GLIBC_2.28, which refused Debian 11 and
// Ubuntu 20.04 for nothing. The dynamic linker checks exactly the version needs (.gnu.version_r), so
// the highest GLIBC_ one there is the glibc the binary runs on.
import { execFileSync } from 'node:child_process';

/**
 * The version needs of `readelf --version-info --wide` output: library file → version names.
 *
 * @param {string} text
 * @returns {Map<string, string[]>}
 */
export function versionNeeds(text) {
  const needs = new Map();
  const start = text.indexOf("Version needs section '.gnu.version_r'");
  if (start === -1) return needs;
  let file;
  for (const line of text.slice(start).split('\n').slice(1)) {
    if (/^\S/.test(line) && line.trim() !== '') break; // the next section
    const f = /\bFile: (\S+)/.exec(line);
    const n = /\bName: (\S+)/.exec(line);
    if (f) {
      file = f[1];
      needs.set(file, needs.get(file) ?? []);
    } else if (n && file !== undefined) needs.get(file).push(n[1]);
  }
  return needs;
}

/** Compares dotted version numbers ("2.28" < "2.3.4" is false: 28 > 3). */
function compareDotted(a, b) {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The highest GLIBC_x.y any library's version needs name ("2.28"), undefined when none does. */
export function glibcNeeded(needs) {
  let best;
  for (const names of needs.values()) {
    for (const name of names) {
      const m = /^GLIBC_(\d+(?:\.\d+)+)$/.exec(name);
      if (m && (best === undefined || compareDotted(m[1], best) > 0)) best = m[1];
    }
  }
  return best;
}

/**
 * A Depends line (dpkg-shlibdeps' `shlibs:Depends` value) with libc6's minimum set to `glibc`;
 * libc6 is added when the line lacks it. Other entries are kept as dpkg-shlibdeps wrote them.
 */
export function withLibc(depends, glibc) {
  const entries = depends.split(',').map((e) => e.trim()).filter(Boolean);
  const libc = `libc6 (>= ${glibc})`;
  const i = entries.findIndex((e) => /^libc6(\s|$|:)/.test(e));
  if (i === -1) entries.unshift(libc);
  else entries[i] = libc;
  return entries.join(', ');
}

/** The GLIBC_ minimum of the ELF file at `binary` (any architecture: readelf reads them all). */
export function glibcOf(binary) {
  const text = execFileSync('readelf', ['--version-info', '--wide', binary], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'inherit'] });
  const glibc = glibcNeeded(versionNeeds(text));
  if (glibc === undefined) throw new Error(`${binary} names no GLIBC_ version need: not a glibc-linked executable`);
  return glibc;
}
