/**
 * Commands the launcher answers without loading the CLI: `tsadm version` with no output flag,
 * `-o short` or `-o json`, and a bare `tsadm token generate`. Start-up is most of such a
 * command's cost (the CLI bundle with yargs, js-yaml, node-forge and every phase is ~1 MB to
 * compile), and scripts call both often: their cold start stays within 1.2× of bare Node (decision 29;
 * BENCHMARKS.md).
 * Anything else, including every spelling this does not recognise, goes to the full CLI, which
 * gives the same output for these cases (test/unit/fast-path.test.ts).
 */
import { LIGHT_VERSION_FORMATS, formatVersion, versionInfo } from './version.js';
import { generateToken } from './token/bootstrap-token.js';

/** The output for argv, or undefined when the full CLI must handle it. */
export function fastPathOutput(argv: readonly string[]): string | undefined {
  if (argv.length === 2 && argv[0] === 'token' && argv[1] === 'generate') return `${generateToken()}\n`;
  const format = versionFormat(argv);
  if (format === undefined || !LIGHT_VERSION_FORMATS.includes(format)) return undefined;
  return formatVersion(versionInfo(), format);
}

function versionFormat(argv: readonly string[]): string | undefined {
  const [command, ...rest] = argv;
  if (command !== 'version') return undefined;
  if (rest.length === 0) return '';
  const [flag = '', value] = rest;
  if (rest.length === 2 && (flag === '-o' || flag === '--output')) return value;
  if (rest.length === 1) {
    const m = /^(?:--output=|-o=)(.+)$/.exec(flag); // yargs reads -ojson as -o -j -s …
    return m?.[1];
  }
  return undefined;
}
