// A jest reporter (jest.config.js, next to the default one): ends every run with a table of the
// time each test file took, slowest first, so a file that grows shows up at once.
//
//   seconds  tests  project  file
//     116.5     14  unit     test/integration/safety/secrets.test.ts
//
// Seconds are jest's own per-file runtime (perfStats: from the file's start to its end, setup and
// teardown included), measured in the worker that ran the file.
import path from 'node:path';

export default class FileTimesReporter {
  /** @param {{ rootDir: string }} globalConfig */
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  /**
   * @param {unknown} _contexts
   * @param {{ testResults: Array<{ testFilePath: string, displayName?: { name: string } | string,
   *   perfStats: { runtime: number, start: number, end: number },
   *   numPassingTests: number, numFailingTests: number, numPendingTests: number, numTodoTests: number }> }} results
   */
  onRunComplete(_contexts, results) {
    const rows = results.testResults
      .map((r) => ({
        file: path.relative(this.rootDir, r.testFilePath),
        project: typeof r.displayName === 'string' ? r.displayName : (r.displayName?.name ?? ''),
        seconds: (r.perfStats.runtime || Math.max(0, r.perfStats.end - r.perfStats.start)) / 1000,
        tests: r.numPassingTests + r.numFailingTests + r.numPendingTests + r.numTodoTests,
      }))
      .sort((a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file));
    if (rows.length === 0) return;
    const total = rows.reduce((s, r) => s + r.seconds, 0);
    const pw = Math.max(7, ...rows.map((r) => r.project.length));
    const lines = [
      '',
      `Time per test file (${rows.length} files, ${total.toFixed(1)} s summed over workers), slowest first:`,
      `${'seconds'.padStart(8)}  ${'tests'.padStart(5)}  ${'project'.padEnd(pw)}  file`,
      ...rows.map((r) => `${r.seconds.toFixed(1).padStart(8)}  ${String(r.tests).padStart(5)}  ${r.project.padEnd(pw)}  ${r.file}`),
      '',
    ];
    process.stderr.write(`${lines.join('\n')}\n`);
  }
}
