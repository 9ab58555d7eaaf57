// jest's test sequencer (jest.config.js `testSequencer`): jest's own order (files that failed last
// time first, then the slowest known, else the largest), except that the e2e files, which run two
// at a time, are ordered by how heavy they are (test/e2e/heavy-files.ts):
//   1. the files that must run without another heavy file beside them (`heavyFile('alone')`: ha);
//   2. the light files, which the other worker runs meanwhile (about as long, in sum, as ha);
//   3. the heavy files that may run beside each other (`heavyFile('together')`: upgrade, safety,
//      join-reset), once the first group is done.
// The order only keeps the lock of heavy-files.ts from being waited for; the lock alone decides
// what may run together. A file's group is read from its source, so a new file needs no table.
// Plain JavaScript: jest loads it with Node's own loader, outside the ts-jest transform.
import Sequencer from '@jest/test-sequencer';
import { readFileSync } from 'node:fs';

const E2E = /[/\\]test[/\\]e2e[/\\][^/\\]+\.e2e\.test\.ts$/;

/** 0 alone, 1 light, 2 together, from the file's top-level call `heavyFile('…');` (a line of its own). */
export function e2eGroup(source) {
  const kind = /^heavyFile\(\s*'(alone|together)'\s*\);/m.exec(source)?.[1];
  return kind === 'alone' ? 0 : kind === 'together' ? 2 : 1;
}

/** TESTS (in jest's order) with the e2e files regrouped; other tests keep their places, before them. */
export function orderE2e(tests, readSource = (p) => readFileSync(p, 'utf8')) {
  const others = tests.filter((t) => !E2E.test(t.path));
  const e2e = tests.filter((t) => E2E.test(t.path)).map((t, i) => ({ t, i, g: e2eGroup(readSource(t.path)) }));
  e2e.sort((a, b) => a.g - b.g || a.i - b.i);
  return [...others, ...e2e.map((x) => x.t)];
}

export default class TsadmSequencer extends Sequencer {
  async sort(tests) {
    return orderE2e(await super.sort(tests));
  }
}
