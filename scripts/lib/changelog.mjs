// CHANGELOG.md in Keep a Changelog form (https://keepachangelog.com/en/1.1.0/): changes collect under
// "## [Unreleased]" and `npm run release` (scripts/release.mjs) moves them under the new version's
// heading. Pure functions of the file's text.

const UNRELEASED = /^## \[Unreleased\][^\n]*\n/m;

/**
 * The changelog with the Unreleased section's entries moved under `## [version] - date`, an empty
 * Unreleased section left above it. Throws when there is no Unreleased section, when it is empty
 * (nothing to release) or when the version already has a section.
 */
export function cutRelease(text, version, date) {
  const m = UNRELEASED.exec(text);
  if (!m) throw new Error('CHANGELOG.md has no "## [Unreleased]" section');
  if (new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\]`, 'm').test(text)) throw new Error(`CHANGELOG.md already has a section for ${version}`);
  const start = m.index + m[0].length;
  const next = text.slice(start).search(/^## /m);
  const end = next === -1 ? text.length : start + next;
  const body = text.slice(start, end).trim();
  if (body === '') throw new Error('CHANGELOG.md\'s Unreleased section is empty: nothing to release');
  return `${text.slice(0, start)}\n## [${version}] - ${date}\n\n${body}\n\n${text.slice(end)}`.replace(/\n+$/, '\n');
}

/** A package.json or package-lock.json text with its own version set (other packages' untouched). */
export function setPackageVersion(jsonText, version) {
  const doc = JSON.parse(jsonText);
  doc.version = version;
  if (doc.packages?.['']) doc.packages[''].version = version;
  const indent = /^[{[]\n( +)/.exec(jsonText)?.[1].length ?? 2;
  return `${JSON.stringify(doc, null, indent)}\n`;
}
