// The waterfall of BENCHMARKS.md (issue 17): one timeline per tool from the same bench run — init's
// phases, the worker's join started the moment init returned, the first CSR the control plane
// signs, the worker's Node registered and Ready — with the limits measured by bench/limits.mjs
// drawn against them. Pure: results in, SVG and Markdown out (bench/bench.mjs writes the file).
import { fmt, median, table } from './lib/stats.mjs';

const COLORS = {
  'start-up': '#bab0ac', init: '#9d9d9d', preflight: '#9d9d9d', certs: '#4e79a7', kubeconfig: '#59a14f', 'kubelet-start': '#f28e2b',
  'control-plane': '#e15759', etcd: '#76b7b2', 'kubelet-check': '#edc948', 'wait-control-plane': '#ff9da7', apiclient: '#9c755f',
  'upload-config': '#b07aa1', kubelet: '#d4a6c8', 'upload-certs': '#86bcb6', 'mark-control-plane': '#8cd17d', 'bootstrap-token': '#499894',
  'kubelet-finalize': '#b6992d', addons: '#d37295', discovery: '#a0cbe8',
};
const color = (label) => COLORS[label] ?? '#cccccc';

/** The run of TOOL whose time to a 2-node cluster is the median one (the lower middle for an even count). */
export function representativeRun(runs) {
  const withWorker = runs.filter((r) => Number.isFinite(r.worker?.readyMs));
  if (withWorker.length === 0) return runs[0];
  const sorted = [...withWorker].sort((a, b) => a.worker.readyMs - b.worker.readyMs);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

const joinFrom = (w) => Math.max(w.kubeletStartMs, w.csrSignedMs);

/** Rows of the picture: { label, bars: [{ start, end, color, title }], marks: [{ at, text }] } in ms from init's start. */
function rows(cluster, limits) {
  const out = [];
  const lInit = limits ? { apiserver: median(limits.init.map((r) => r.apiserver)), csr: median(limits.init.map((r) => r.csrSigned)) } : undefined;
  const lJoin = limits ? { registered: median(limits.join.map((r) => r.registered)), ready: median(limits.join.map((r) => r.ready)) } : undefined;
  for (const tool of ['kubeadm', 'tsadm']) {
    const run = representativeRun(cluster[tool]);
    if (!run?.init.segments) continue;
    const bars = (segs) => segs.map((s) => ({ start: s.start, end: s.end, color: color(s.label), title: `${s.label} ${fmt((s.end - s.start) / 1000, 2)} s` }));
    out.push({ label: `${tool} init`, bars: bars(run.init.segments), marks: [] });
    if (run.join?.segments && run.worker) {
      const w = run.worker;
      out.push({ label: `${tool} join (worker)`, bars: bars(run.join.segments), marks: [] });
      out.push({
        label: `${tool} cluster`,
        bars: [{ start: 0, end: w.readyMs, color: '#e8e8e8', title: 'init start → worker Ready' }],
        marks: [
          { at: w.initEndMs, text: 'init returned' },
          { at: w.csrSignedMs, text: 'first CSR signed' },
          { at: w.registeredMs, text: 'worker registered' },
          { at: w.readyMs, text: `worker Ready ${fmt(w.readyMs / 1000, 1)} s` },
        ],
      });
      if (lInit && lJoin) {
        out.push({
          label: `${tool}: limits`,
          // L_join starts where a kubelet with credentials could start at the earliest: its own
          // start, or the first signed CSR if the control plane could not sign before.
          bars: [
            { start: w.initKubeletStartMs, end: w.initKubeletStartMs + lInit.apiserver, color: '#c7c7c7', title: 'L_init: kubelet start → API server healthy' },
            { start: joinFrom(w), end: joinFrom(w) + lJoin.ready, color: '#dddddd', title: 'L_join: credentials → Node Ready' },
          ],
          marks: [
            { at: w.initKubeletStartMs + lInit.csr, text: 'L_init: CSR signed' },
            { at: joinFrom(w) + lJoin.ready, text: 'L_join: Ready' },
          ],
        });
      }
    }
  }
  return out;
}

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The waterfall as an SVG document. */
export function waterfallSvg(cluster, limits) {
  const rs = rows(cluster, limits);
  const maxMs = Math.max(10_000, ...rs.flatMap((r) => [...r.bars.map((b) => b.end), ...r.marks.map((m) => m.at)]).filter(Number.isFinite));
  const left = 170;
  const width = 1100;
  const rowH = 44;
  const top = 30;
  // Room on the right for the last mark's label.
  const x = (ms) => left + (ms / maxMs) * (width - left - 110);
  const parts = [];
  const height = top + rs.length * rowH + 90;
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`);
  parts.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  for (let s = 0; s * 1000 <= maxMs; s += 5) {
    parts.push(`<line x1="${x(s * 1000)}" y1="${top - 8}" x2="${x(s * 1000)}" y2="${top + rs.length * rowH}" stroke="#eeeeee"/>`);
    parts.push(`<text x="${x(s * 1000)}" y="${top - 12}" text-anchor="middle" fill="#666666">${s} s</text>`);
  }
  rs.forEach((r, i) => {
    const y = top + i * rowH;
    parts.push(`<text x="6" y="${y + 14}" fill="#222222">${esc(r.label)}</text>`);
    for (const b of r.bars) {
      if (!Number.isFinite(b.start) || !Number.isFinite(b.end)) continue;
      parts.push(`<rect x="${x(b.start)}" y="${y + 3}" width="${Math.max(1, x(b.end) - x(b.start))}" height="16" fill="${b.color}"><title>${esc(b.title)}</title></rect>`);
    }
    r.marks.forEach((m, k) => {
      if (!Number.isFinite(m.at)) return;
      parts.push(`<line x1="${x(m.at)}" y1="${y}" x2="${x(m.at)}" y2="${y + 22}" stroke="#000000" stroke-width="1.5"/>`);
      parts.push(`<text x="${x(m.at) + 2}" y="${y + 31 + (k % 2) * 10}" fill="#333333" font-size="9">${esc(m.text)}</text>`);
    });
  });
  const used = [...new Set(rs.flatMap((r) => r.bars.map((b) => b.title.split(' ')[0])).filter((l) => COLORS[l]))];
  used.forEach((label, k) => {
    const lx = 6 + (k % 8) * 135;
    const ly = top + rs.length * rowH + 16 + Math.floor(k / 8) * 18;
    parts.push(`<rect x="${lx}" y="${ly - 9}" width="10" height="10" fill="${color(label)}"/><text x="${lx + 14}" y="${ly}" fill="#333333">${esc(label)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

/** The same runs as tables: the phases of the representative runs, then the milestones' medians. */
export function waterfallTables(cluster) {
  const phaseRows = new Map();
  for (const tool of ['kubeadm', 'tsadm']) {
    const run = representativeRun(cluster[tool]);
    for (const [part, segs] of [['init', run?.init.segments], ['join', run?.join?.segments]]) {
      for (const s of segs ?? []) {
        const key = `${part} ${s.label}`;
        const row = phaseRows.get(key) ?? { kubeadm: undefined, tsadm: undefined };
        const prev = row[tool];
        row[tool] = prev ? { start: prev.start, dur: prev.dur + s.end - s.start } : { start: s.start, dur: s.end - s.start };
        phaseRows.set(key, row);
      }
    }
  }
  const cell = (c) => (c ? `${fmt(c.start / 1000, 2)} + ${fmt(c.dur / 1000, 2)}` : '—');
  const firstStart = (r) => Math.min(r.kubeadm?.start ?? Infinity, r.tsadm?.start ?? Infinity);
  const ordered = [...phaseRows].sort(([ka, a], [kb, b]) => (ka.startsWith('join') === kb.startsWith('join') ? firstStart(a) - firstStart(b) : ka.startsWith('join') ? 1 : -1));
  const phases = table(['phase (first line at, s + how long, s)', 'kubeadm', 'tsadm'], ordered.map(([k, r]) => [k, cell(r.kubeadm), cell(r.tsadm)]));
  const ms = (tool, key) => cluster[tool].map((r) => r.worker?.[key]).filter(Number.isFinite);
  const milestone = (label, key) => [label, fmt(median(ms('kubeadm', key)) / 1000, 2), fmt(median(ms('tsadm', key)) / 1000, 2)];
  const milestones = table(['milestone, s after init started (median of the runs)', 'kubeadm', 'tsadm'], [
    milestone('init returned', 'initEndMs'),
    milestone('the first CSR signed (probe created at init\'s return)', 'csrSignedMs'),
    milestone('worker Node registered', 'registeredMs'),
    milestone('**worker Node Ready**', 'readyMs'),
  ]);
  return { phases, milestones };
}

/** kube-controller-manager's own log lines that explain the settling (bench/cluster.mjs collects them). */
const EVIDENCE = [
  ['lease acquired (leader election)', /successfully acquired lease/],
  ['nodeipam: range allocator starts its first 10 s wait', /node_ipam_controller\.go.*Sending events/],
  ['nodeipam: started (first node list done)', /Started "nodeipam"/],
  ['csrsigning: caches synced (can sign)', /Caches are synced for certificate-csrsigning-kubelet-client/],
];

/**
 * When the controller-manager reached each step, in seconds after its (last) container started,
 * for each tool's representative run: the settling, explained from its log.
 */
export function settlingEvidenceTable(cluster) {
  const at = (tool) => {
    const lines = representativeRun(cluster[tool])?.settling?.evidence ?? [];
    const last = lines.map((l, i) => (l.startsWith('container ') ? i : -1)).filter((i) => i >= 0).pop() ?? -1;
    if (last < 0) return {};
    const stamp = (l) => Date.parse(/(\d{4}-\d\d-\d\dT[\d:.]+Z)/.exec(l)?.[1] ?? '');
    const t0 = stamp(lines[last]);
    const out = {};
    for (const l of lines.slice(last + 1)) for (const [name, re] of EVIDENCE) if (re.test(l) && out[name] === undefined) out[name] = stamp(l) - t0;
    return out;
  };
  const [k, t] = [at('kubeadm'), at('tsadm')];
  return table(['kube-controller-manager, s after its container started', 'kubeadm run', 'tsadm run'],
    EVIDENCE.map(([name]) => [name, fmt((k[name] ?? NaN) / 1000, 2), fmt((t[name] ?? NaN) / 1000, 2)]));
}
