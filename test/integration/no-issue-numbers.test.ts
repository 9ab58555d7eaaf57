/**
 * The source says why, not when: tsadm's own issue numbers ("(issue 40)") belong in git history
 * and docs/decisions.md, not in src/ (docs/development.md). A reference to an upstream issue is
 * fine: it names its project or carries a '#' ("kubeadm issue #1350", "kubernetes/kubeadm#2742").
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Lines that cite one of tsadm's own issues: "issue N" without a project or '#'. */
function ownIssueCitations(text: string): string[] {
  return text.split('\n').filter((line) => /\bissues? \d+\b/i.test(line) && !/#|kubeadm|kubernetes|upstream|github/i.test(line));
}

test('the pattern catches a tsadm issue number and lets an upstream one through', () => {
  expect(ownIssueCitations('// left out of help (issue 40).\n// Issues 26 and 27 added it')).toHaveLength(2);
  expect(ownIssueCitations('// kubeadm issue #1350 asks for it\n// kubernetes/kubeadm#2742 shows the file\n// kubeadm issue 3034')).toEqual([]);
});

test('no file of src/ cites a tsadm issue number', () => {
  const found = sources(SRC).flatMap((file) => ownIssueCitations(readFileSync(file, 'utf8')).map((line) => `${path.relative(SRC, file)}: ${line.trim()}`));
  expect(found).toEqual([]);
});
