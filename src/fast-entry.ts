import { fastPathOutput } from './fast-path.js';

/**
 * bin/tsadm's first stop (bundled alone to dist/fast.mjs: one small module without chunks and
 * without the CommonJS `require` banner, each of which costs start-up milliseconds). Answers the
 * fast-path commands (src/fast-path.ts) and returns true, or returns false and the launcher loads
 * the CLI (dist/tsadm.mjs), so that `version` and `token generate` start within 1.2× of bare Node
 * (decision 29).
 */
export function answerFast(argv: readonly string[]): boolean {
  const out = fastPathOutput(argv);
  if (out === undefined) return false;
  process.stdout.write(out);
  return true;
}
