import { tmpdir } from 'node:os';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';

/** The module graph of scripts/build.mjs's bundle (split ESM for Node 24), built in memory. */
export async function bundleMetafile(): Promise<Metafile> {
  const { metafile } = await build({
    entryPoints: { tsadm: 'src/entry.ts' }, outdir: path.join(tmpdir(), 'tsadm-bundle-check'), outExtension: { '.js': '.mjs' }, bundle: true, splitting: true,
    format: 'esm', platform: 'node', target: 'node24', metafile: true, write: false, logLevel: 'silent',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  return metafile;
}

/** The source files in the output chunk holding MODULE and every chunk it imports statically (what loads with it). */
export function staticClosureOf(metafile: Metafile, module: string): string[] {
  const outputs = metafile.outputs;
  const start = Object.keys(outputs).filter((k) => Object.keys(outputs[k]?.inputs ?? {}).includes(module));
  const seen = new Set<string>();
  const walk = (k: string): void => {
    if (seen.has(k)) return;
    seen.add(k);
    for (const imp of outputs[k]?.imports ?? []) if (imp.kind === 'import-statement' && !imp.external && outputs[imp.path]) walk(imp.path);
  };
  start.forEach(walk);
  return [...seen].flatMap((k) => Object.keys(outputs[k]?.inputs ?? {}));
}
