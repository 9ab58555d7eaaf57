// Bundles the CLI into dist/tsadm.mjs. Heavy modules that only some commands need
// (listr2, execa, gRPC, client-node's KubeConfig) stay behind dynamic import() so they are split into
// separate chunks and loaded only by the commands that use them.
import { build, transform } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { buildDefines } from './lib/build-info.mjs';

// gitVersion, gitCommit, gitTreeState and buildDate for `tsadm version` (scripts/lib/build-info.mjs).
const define = buildDefines();

// Chunks of earlier builds (their names are content hashes) would otherwise pile up in dist/ and in
// `npm pack`; the single executable (dist/tsadm; its work dirs dist/sea-<pid>/ go when it is built) and the .deb are left alone.
mkdirSync('dist', { recursive: true });

// Node's built-in modules through require() rather than `import` (issue 39): an ESM import of a
// built-in builds its ES module facade, which reads every export, lazy getters included, so
// `import { inspect } from 'node:util'` alone loads worker_threads, web streams and Node's own undici.
// 19 built-ins cost 3.4 MB more peak RSS imported than required (BENCHMARKS.md, "Footprint").
// Required, each is a CommonJS module to esbuild, whose __toESM wrapper copies getters that read
// an export only when the code uses it. The single executable is CommonJS already.
const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/0-9]+$/ }, (args) => {
      if (!BUILTINS.has(args.path)) return undefined;
      // The require() inside the stand-in module is the real built-in.
      if (args.namespace === 'builtin') return { path: args.path, external: true };
      return { path: args.path.replace(/^node:/, ''), namespace: 'builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({ contents: `module.exports = require('node:${args.path}');`, loader: 'js' }));
  },
};

// esbuild escapes non-ASCII characters in code (its default charset) but keeps them in the comments
// it carries over; one "≥" in a comment makes V8 hold the whole chunk (1.4 MB for main) as a
// two-byte string (issue 39: 1.7 MB of peak RSS in `init`). Those characters become \u{…} text.
// Proof that only comments changed: both texts minify (comments dropped) to the same code.
async function asciiOnly(dir) {
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.mjs')) continue;
    const text = readFileSync(`${dir}/${name}`, 'utf8');
    const ascii = text.replace(/[^\p{ASCII}]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
    if (ascii === text) continue;
    const code = async (t) => (await transform(t, { minify: true, format: 'esm', legalComments: 'none' })).code;
    if ((await code(text)) !== (await code(ascii))) throw new Error(`build: a non-ASCII character outside a comment in ${dir}/${name}`);
    writeFileSync(`${dir}/${name}`, ascii);
  }
}

for (const name of readdirSync('dist')) if (/\.mjs(\.map)?$/.test(name)) rmSync(`dist/${name}`);
await build({
  entryPoints: { tsadm: 'src/entry.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  sourcemap: 'linked',
  legalComments: 'none',
  define,
  // Some CommonJS dependencies call require() for Node built-ins; give the ESM bundle one.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
  plugins: [builtinsByRequire],
});

// The launcher's fast path (src/fast-entry.ts) on its own: no chunks, no require banner.
await build({
  entryPoints: { fast: 'src/fast-entry.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  legalComments: 'none',
  define,
  logLevel: 'warning',
});
await asciiOnly('dist');
