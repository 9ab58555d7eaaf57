/**
 * The one flag registry (src/flags.ts): a variant replaces its entry's fields and keeps its type,
 * the help texts that name a fact of a higher layer say what that layer holds, and no module of
 * src/ but the yargs kit declares a flag to yargs (every command takes its flags from here).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLAGS, KLOG_FLAGS, flagSpec } from '../../src/flags.js';
import { DEFAULT_ADMIN_KUBECONFIG, DEFAULT_CERT_DIR } from '../../src/constants.js';
import { DEFAULT_SNAPSHOT_DIR } from '../../src/etcd-snapshot/names.js';
import { EXIT_EXPIRING } from '../../src/certs-lifecycle/threshold.js';
import { TOKEN_CREATE_DEFAULTS } from '../../src/token/commands.js';
import { IMAGES_OUTPUTS } from '../../src/commands/images.js';

describe('flagSpec', () => {
  test('a name is its entry without the variants', () => {
    const { name, spec } = flagSpec('dry-run');
    expect(name).toBe('dry-run');
    expect(spec).toEqual({ type: 'boolean', describe: FLAGS['dry-run'].describe });
  });

  test('a variant replaces the fields it names (undefined removes one) and keeps the type and the rest', () => {
    const events = flagSpec('output@events').spec;
    expect(events).toMatchObject({ type: 'string', alias: 'o', describe: FLAGS.output.variants.events.describe });
    expect(events.defaultDescription).toBeUndefined();
    expect(FLAGS.output.defaultDescription).toBe('text');
    const schedule = flagSpec('keep@schedule').spec;
    expect(schedule).toMatchObject({ type: 'number', default: 5 });
    expect(schedule.demandOption).toBeUndefined();
    expect(flagSpec('keep').spec.demandOption).toBe(true);
    expect(flagSpec('force@remove-member').spec.alias).toBeUndefined();
  });

  test('klog\'s flags are in the registry', () => {
    for (const name of KLOG_FLAGS) expect(FLAGS[name].describe.length).toBeGreaterThan(0);
  });
});

describe('help texts that name a fact of a higher layer', () => {
  test('say what that layer holds', () => {
    expect(FLAGS.kubeconfig.defaultDescription).toBe(DEFAULT_ADMIN_KUBECONFIG);
    expect(flagSpec('cert-dir@certs').spec.defaultDescription).toBe(DEFAULT_CERT_DIR);
    expect(FLAGS.dir.defaultDescription).toBe(DEFAULT_SNAPSHOT_DIR);
    expect(FLAGS['expiring-within'].describe).toContain(`Exit with status ${EXIT_EXPIRING} `);
    expect(FLAGS.ttl.defaultDescription).toBe(TOKEN_CREATE_DEFAULTS.ttl);
    expect(FLAGS.usages.defaultDescription).toBe(`[${TOKEN_CREATE_DEFAULTS.usages.join(',')}]`);
    expect(FLAGS.groups.defaultDescription).toBe(`[${TOKEN_CREATE_DEFAULTS.groups.join(',')}]`);
    expect(flagSpec('output@printers').spec.describe).toContain(`One of: ${IMAGES_OUTPUTS.join('|')} `);
    expect(FLAGS['component-configs'].describe).toContain('[KubeletConfiguration KubeProxyConfiguration]');
  });
});

/** Every .ts file under src/, with its text. */
function sources(): { file: string; text: string }[] {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ file: `src/${f.split(path.sep).join('/')}`, text: readFileSync(path.join(root, f), 'utf8') }));
}

/** A flag declared to yargs: its option methods (positionals and commands are not flags). */
const DECLARES_FLAG = /\.(option|options|boolean|string|number|array|count|requiresArg|demandOption|nargs)\(/;
/** The one module that turns registry entries into yargs options. */
const KIT = 'src/cli/yargs-kit.ts';

describe('no flag is declared outside the registry', () => {
  test('the pattern finds a flag declared inline, and not a positional', () => {
    expect(DECLARES_FLAG.test(".option('rootfs', { type: 'string', requiresArg: true, describe: 'Path to the real host root filesystem.' })")).toBe(true);
    expect(DECLARES_FLAG.test("c.options({ rootfs: { type: 'string' } })")).toBe(true);
    expect(DECLARES_FLAG.test("o.positional('file', { type: 'string', describe: 'The snapshot file' })")).toBe(false);
    expect(DECLARES_FLAG.test("addFlags(c, ['kubeconfig', 'dry-run@token', 'rootfs', 'v@short'])")).toBe(false);
    // The scan sees the kit itself (so it reads the real files).
    expect(sources().filter((s) => DECLARES_FLAG.test(s.text)).map((s) => s.file)).toContain(KIT);
  });

  test('only the yargs kit declares flags to yargs; every command takes them from src/flags.ts by name', () => {
    const offenders = sources().filter((s) => s.file !== KIT && DECLARES_FLAG.test(s.text)).map((s) => s.file);
    expect(offenders).toEqual([]);
  });
});
