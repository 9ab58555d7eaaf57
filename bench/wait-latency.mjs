#!/usr/bin/env node
// How late tsadm notices a component that became healthy: runs the real waitForHealthy
// (src/health/wait-loop.ts, bundled on the fly) against local HTTP servers that start
// answering 200 at a random moment 2–9 s in, for several poll caps, all trials concurrently.
//   node bench/wait-latency.mjs [trials=24]
import { build } from 'esbuild';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from './lib/stats.mjs';

const trials = Number(process.argv[2] ?? 24);
const dir = mkdtempSync(path.join(os.tmpdir(), 'wait-latency-'));
try {
  await build({ entryPoints: ['src/health/wait-loop.ts'], bundle: true, format: 'esm', platform: 'node', outfile: path.join(dir, 'w.mjs'), logLevel: 'warning' });
  const { waitForHealthy } = await import(pathToFileURL(path.join(dir, 'w.mjs')).href);
  const t0 = performance.now();
  const server = http.createServer((req, res) => {
    const readyAt = Number(new URL(req.url, 'http://x').searchParams.get('at'));
    res.writeHead(performance.now() - t0 >= readyAt ? 200 : 503).end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  const check = (url, signal) => new Promise((resolve) => {
    http.get(url, { signal }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? { ok: true } : { ok: false, detail: String(res.statusCode) });
    }).on('error', (e) => resolve({ ok: false, detail: e.message }));
  });
  const caps = [2000, 500];
  const late = Object.fromEntries(caps.map((c) => [c, []]));
  await Promise.all(caps.flatMap((cap) => Array.from({ length: trials }, async () => {
    const at = 2000 + Math.random() * 7000;
    const r = await waitForHealthy([{ component: 'x', url: `http://127.0.0.1:${port}/?at=${at}` }], { timeoutMs: 30_000, check, maxIntervalMs: cap, now: () => performance.now() - t0 });
    late[cap].push(r.states[0].healthyAfterMs - at);
  })));
  server.close();
  for (const cap of caps) {
    const v = late[cap];
    process.stdout.write(`poll cap ${cap} ms: noticed late by median ${median(v).toFixed(0)} ms, max ${Math.max(...v).toFixed(0)} ms (${v.length} trials)\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
