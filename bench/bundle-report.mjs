#!/usr/bin/env node
// What start-up has to load: bundles the CLI like scripts/build.mjs (into a temp dir) and prints
// the bytes per package in the entry chunk and in the chunks it imports statically (dynamic
// imports — listr2, grpc, execa, client-node's config module — are loaded only by the commands that need them).
//   node bench/bundle-report.mjs
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const out = mkdtempSync(path.join(os.tmpdir(), 'tsadm-bundle-'));
try {
  const r = await build({
    entryPoints: { tsadm: 'src/entry.ts' }, outdir: out, outExtension: { '.js': '.mjs' }, bundle: true, splitting: true,
    format: 'esm', platform: 'node', target: 'node24', metafile: true, write: false, define: { __TSADM_VERSION__: '"0"' }, logLevel: 'warning',
  });
  const outputs = r.metafile.outputs;
  const entry = Object.keys(outputs).find((k) => k.endsWith('/tsadm.mjs'));
  const startup = new Set();
  const visit = (file) => {
    if (startup.has(file)) return;
    startup.add(file);
    for (const i of outputs[file].imports) if (i.kind === 'import-statement' && outputs[i.path]) visit(i.path);
  };
  visit(entry);
  const byPkg = {};
  let total = 0;
  for (const file of startup) {
    for (const [input, v] of Object.entries(outputs[file].inputs)) {
      const m = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(input);
      byPkg[m ? m[1] : '(tsadm src)'] = (byPkg[m ? m[1] : '(tsadm src)'] ?? 0) + v.bytesInOutput;
      total += v.bytesInOutput;
    }
  }
  process.stdout.write(`loaded at start-up: ${startup.size} file(s), ${(total / 1024).toFixed(0)} KiB\n`);
  for (const [k, v] of Object.entries(byPkg).sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${(v / 1024).toFixed(0).padStart(6)} KiB  ${k}\n`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
