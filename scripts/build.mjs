// Bundles the CLI into dist/tsadm.mjs. Heavy modules that only some commands need
// (listr2, execa, gRPC, client-node's KubeConfig) stay behind dynamic import() so they are split into
// separate chunks and loaded only by the commands that use them.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { buildDefines } from './lib/build-info.mjs';

// gitVersion, gitCommit, gitTreeState and buildDate for `tsadm version` (scripts/lib/build-info.mjs).
const define = buildDefines();

// Chunks of earlier builds (their names are content hashes) would otherwise pile up in dist/ and in
// `npm pack`; the single executable (dist/tsadm; its work dirs dist/sea-<pid>/ go when it is built) and the .deb are left alone.
mkdirSync('dist', { recursive: true });
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
