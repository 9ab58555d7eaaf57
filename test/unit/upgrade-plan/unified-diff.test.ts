/**
 * The unified diff against Python's difflib.unified_diff (go-difflib, which kubeadm's upgrade diff
 * uses, is a port of it): fixtures in test/fixtures/upgrade-diff (see its README).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { splitLines, unifiedDiff } from '../../../src/upgrade-plan/unified-diff.js';

const FIX = path.resolve('test/fixtures');
const read = (p: string): string => readFileSync(path.join(FIX, p), 'utf8');
const current = read('manifests/v1.20.2/default/kube-apiserver.yaml');
const next = read('upgrade-diff/new-kube-apiserver.yaml');

test.each([3, 0, 10])('kube-apiserver manifest, %i lines of context: as difflib prints it', (context) => {
  expect(unifiedDiff({ a: current, b: next, fromFile: '/etc/kubernetes/manifests/kube-apiserver.yaml', toFile: 'new manifest', context })).toBe(read(`upgrade-diff/kube-apiserver.context${context}.diff`));
});

test('equal inputs: no output at all (kubeadm prints nothing for an unchanged manifest)', () => {
  expect(unifiedDiff({ a: current, b: current, fromFile: 'a', toFile: 'b', context: 3 })).toBe('');
});

test('go-difflib SplitLines: the last piece always gets a newline', () => {
  expect(splitLines('a\nb\n')).toEqual(['a\n', 'b\n', '\n']);
  expect(splitLines('a\nb')).toEqual(['a\n', 'b\n']);
  expect(splitLines('')).toEqual(['\n']);
});

test('a pure insertion into an empty file uses difflib\'s empty-range form "-0,0"', () => {
  // difflib.unified_diff(['\n'], ['x\n', '\n'], 'a', 'b') → @@ -0,0 +1 @@ / +x
  expect(unifiedDiff({ a: '', b: 'x\n', fromFile: 'a', toFile: 'b', context: 0 })).toBe('--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n');
});
