// The documentation the Debian package ships (scripts/package-deb.mjs): README.md, CHANGELOG.md and
// every docs/*.md, under DOC_DIR at their repository paths, so the links between them keep working
// and `tsadm … --help`, the man pages and error hints can name them as installed
// (`/usr/share/doc/tsadm/docs/plan.md`); test/integration/deb-docs.test.ts checks every path help
// names is in this list.
import { readdirSync } from 'node:fs';
import path from 'node:path';

export const DOC_DIR = '/usr/share/doc/tsadm';

/**
 * The files, as `{ source, installed }`: the repository path and the absolute installed path.
 *
 * @param {string} repo
 */
export function docFiles(repo) {
  const docs = readdirSync(path.join(repo, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
  return ['README.md', 'CHANGELOG.md', ...docs].map((source) => ({ source, installed: `${DOC_DIR}/${source}` }));
}
