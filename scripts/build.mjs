// Bundles the CLI into dist/tsadm.mjs. Heavy modules that only some commands need
// (listr2, execa, gRPC, client-node's KubeConfig) stay behind dynamic import() so they are split into
// separate chunks and loaded only by the commands that use them.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
await build({
  entryPoints: { tsadm: 'src/entry.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'none',
  define: { __TSADM_VERSION__: JSON.stringify(pkg.version) },
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
  target: 'node20',
  legalComments: 'none',
  define: { __TSADM_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});
