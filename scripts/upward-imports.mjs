#!/usr/bin/env node
// How many folder-to-folder imports of src/ must run upward: docs/architecture.md, "Layers".
//
// Each folder of src/ is one box (src/phases/certs, src/kube, …); a file directly in src/ and
// src/cli/app.ts (a layer of its own) are boxes by themselves. A box stands above every box it
// imports. Where boxes import each other, directly or round a loop, no order can put each above
// all it imports: some arrows must point up. The count is the fewest such arrows over every order
// of the boxes (a minimum feedback arc set, computed exactly per strongly connected group), so it
// does not depend on how the layers are drawn. `npm run lint:layers` keeps the arrows between
// layers downward; this counts the loops inside a layer too.
//
// Usage: node scripts/upward-imports.mjs [--json]   (prints the count and the upward arrows)
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEPCRUISE = path.join(REPO, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');

/** The box of a module of src/. */
export function boxOf(file) {
  if (file === 'src/cli/app.ts' || path.posix.dirname(file) === 'src') return file.replace(/^src\//, '');
  return path.posix.dirname(file).replace(/^src\//, '');
}

/** The box-to-box arrows of a module graph: Map of "a -> b" to the number of imports. */
export function arrows(modules) {
  const out = new Map();
  for (const m of modules) {
    if (!m.source.startsWith('src/')) continue;
    for (const d of m.dependencies) {
      if (!d.resolved.startsWith('src/')) continue;
      const a = boxOf(m.source);
      const b = boxOf(d.resolved);
      if (a !== b) out.set(`${a} -> ${b}`, (out.get(`${a} -> ${b}`) ?? 0) + 1);
    }
  }
  return out;
}

/** Tarjan's strongly connected components of a graph given as Map<node, node[]>. */
function components(adj) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const out = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of adj.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const c = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      c.push(w);
    } while (w !== v);
    out.push(c);
  };
  for (const v of adj.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** An upward arrow costs more than all the imports any arrows of src/ carry. */
const ARROW = 1e6;

/**
 * The fewest arrows pointing up over every bottom-up order of one component, exactly: a dynamic
 * program over the sets of boxes already placed (2^n states; the loop refuses more than 22 boxes).
 * Among orders with as few arrows, the one whose upward arrows carry the fewest imports.
 */
function leastUpward(component, box) {
  const arrowKeys = [...box.keys()];
  const n = component.length;
  if (n > 22) throw new Error(`a loop of ${n} folders is too large to order exactly: ${component.join(', ')}`);
  const id = new Map(component.map((x, i) => [x, i]));
  // weight[v][u]: the cost of u standing below v while importing it (an arrow outweighs any imports).
  const weight = Array.from({ length: n }, () => new Array(n).fill(0));
  for (const k of arrowKeys) {
    const [a, b] = k.split(' -> ');
    if (id.has(a) && id.has(b)) weight[id.get(b)][id.get(a)] = ARROW + box.get(k);
  }
  const all = (1 << n) - 1;
  const cost = new Float64Array(all + 1).fill(Infinity);
  const last = new Int8Array(all + 1).fill(-1);
  cost[0] = 0;
  for (let placed = 0; placed < all; placed++) {
    if (cost[placed] === Infinity) continue;
    for (let v = 0; v < n; v++) {
      if (placed & (1 << v)) continue;
      // v goes on top of `placed`: every box below it that imports it imports upward.
      let c = cost[placed];
      for (let u = 0; u < n; u++) if (placed & (1 << u)) c += weight[v][u];
      const to = placed | (1 << v);
      if (c < cost[to]) {
        cost[to] = c;
        last[to] = v;
      }
    }
  }
  const order = [];
  for (let s = all; s !== 0; s &= ~(1 << last[s])) order.unshift(component[last[s]]);
  const rank = new Map(order.map((x, i) => [x, i]));
  const up = arrowKeys.filter((k) => {
    const [a, b] = k.split(' -> ');
    return rank.has(a) && rank.has(b) && rank.get(a) < rank.get(b);
  });
  return { order, up };
}

/** The least number of upward box arrows of a module graph, with one order that achieves it. */
export function upwardImports(modules) {
  const box = arrows(modules);
  const adj = new Map();
  for (const k of box.keys()) {
    const [a, b] = k.split(' -> ');
    if (!adj.has(a)) adj.set(a, []);
    if (!adj.has(b)) adj.set(b, []);
    adj.get(a).push(b);
  }
  const loops = components(adj)
    .filter((c) => c.length > 1)
    .map((c) => leastUpward(c.sort(), box));
  const up = loops.flatMap((l) => l.up).sort();
  return { count: up.length, up: up.map((k) => `${k} (${box.get(k)} import${box.get(k) === 1 ? '' : 's'})`), loops: loops.map((l) => l.order) };
}

/** dependency-cruiser's module graph of `dir`/src (the project's resolution options). */
export function cruise(dir = REPO) {
  const r = spawnSync(process.execPath, [DEPCRUISE, 'src', '--config', path.join(REPO, '.dependency-cruiser.mjs'), '--output-type', 'json'], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.stdout === '') throw new Error(`depcruise printed nothing: ${r.stderr}`);
  return JSON.parse(r.stdout).modules;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = upwardImports(cruise());
  if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(`${result.count} folder-to-folder imports must run upward`);
    for (const u of result.up) console.log(`  ${u}`);
  }
}
