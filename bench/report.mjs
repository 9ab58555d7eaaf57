// Renders bench results (see bench.mjs) as Markdown tables: medians and paired ratios.
import { fmt, median, pairedRatio, table } from './lib/stats.mjs';
import { settlingEvidenceTable, waterfallTables } from './waterfall.mjs';

const pick = (runs, key) => runs.map((r) => r[key]);

function microTable(micro) {
  const rows = Object.entries(micro).map(([name, r]) => {
    const k = pick(r.kubeadm, 'wallMs');
    const t = pick(r.tsadm, 'wallMs');
    return [name, String(k.length), fmt(median(k)), fmt(median(t)), fmt(pairedRatio(t, k), 2),
      fmt(median(pick(r.kubeadm, 'cpuMs'))), fmt(median(pick(r.tsadm, 'cpuMs'))),
      r.rss ? `${fmt(Math.max(...pick(r.kubeadm, 'maxRssMb')))} / ${fmt(Math.max(...pick(r.tsadm, 'maxRssMb')))}` : '',
      fmt(median(pick([...r.kubeadm, ...r.tsadm], 'load')), 2)];
  });
  const sum = (a, b) => a.map((x, i) => x + b[i]);
  for (const alg of ['RSA-2048', 'ECDSA-P256']) {
    const c = micro[`certs all (${alg})`];
    const kc = micro[`kubeconfig all (${alg})`];
    if (!c || !kc) continue;
    const k = sum(pick(c.kubeadm, 'wallMs'), pick(kc.kubeadm, 'wallMs'));
    const t = sum(pick(c.tsadm, 'wallMs'), pick(kc.tsadm, 'wallMs'));
    rows.push([`**certs + kubeconfig (${alg})**`, String(k.length), fmt(median(k)), fmt(median(t)), `**${fmt(pairedRatio(t, k), 2)}**`, '', '', '', '']);
  }
  return table(['case', 'pairs', 'kubeadm ms', 'tsadm ms', 'ratio t/k', 'kubeadm cpu ms', 'tsadm cpu ms', 'max RSS MB k / t', 'load'], rows);
}

function clusterTable(cluster) {
  const k = cluster.kubeadm;
  const t = cluster.tsadm;
  const ki = k.map((r) => r.init);
  const ti = t.map((r) => r.init);
  const s = (x) => fmt(x / 1000, 2);
  const rowOf = (kr, tr) => (label, key, conv = s) => [label, conv(median(pick(kr, key))), tr.length ? conv(median(pick(tr, key))) : 'not measurable',
    tr.length ? fmt(pairedRatio(pick(tr, key), pick(kr, key)), 2) : 'n/a'];
  const row = rowOf(ki, ti);
  const rows = [
    row('init wall, s (command start → exit, control plane healthy)', 'wallMs'),
    row('  of which waiting for components (kubelet + control plane, from the tool log), s', 'waitMs'),
    row("  the rest: the tool's own work (certs, files, API writes), s", 'ownMs'),
    row('init CPU time (user+sys), s', 'cpuMs'),
    row('init max RSS, MB', 'maxRssMb', (x) => fmt(x)),
  ];
  const part = (runs, key) => runs.map((r) => r[key]).filter(Boolean);
  const [kw, tw] = [part(k, 'worker'), part(t, 'worker')];
  if (kw.length) {
    const wrow = rowOf(kw, tw);
    rows.push(
      wrow('**time to a 2-node cluster** (init start → worker Node Ready; join launched at init\'s return), s', 'readyMs'),
      wrow('  init start → worker Node registered, s', 'registeredMs'),
      wrow('  init start → the first CSR signed (probe created at init\'s return), s', 'csrSignedMs'),
    );
    const settle = (runs) => runs.map((r) => r.settling?.afterInitMs);
    rows.push(['  settling: init returned → the first CSR signed, s', s(median(settle(k))), s(median(settle(t))), fmt(pairedRatio(settle(t), settle(k)), 2)]);
  }
  const [kj, tj] = [part(k, 'join'), part(t, 'join')];
  if (kj.length) {
    const jrow = rowOf(kj, tj);
    rows.push(jrow('join at init\'s return: wall to Node registered, s', 'wallMs'), jrow('  its CPU time, s', 'cpuMs'), jrow('  its max RSS, MB', 'maxRssMb', (x) => fmt(x)));
  }
  const [ks, ts] = [part(k, 'settledJoin'), part(t, 'settledJoin')];
  if (ks.length) {
    const srow = rowOf(ks, ts);
    rows.push(srow('join on a settled control plane: wall to Node registered, s', 'wallMs'), srow('  its CPU time, s', 'cpuMs'), srow('  its max RSS, MB', 'maxRssMb', (x) => fmt(x)));
    const four = (runs) => runs.map((r) => (r.concurrentJoins ? Math.max(...r.concurrentJoins.wallMs) : NaN));
    rows.push(['4 joins at once (settled): the last Node registered, s', s(median(four(k))), s(median(four(t))), fmt(pairedRatio(four(t), four(k)), 2)]);
  }
  return `${k.length} pair(s); init loads: ${[...ki, ...ti].map((r) => r.load).join(', ')}\n\n` + table(['full cluster (medians)', 'kubeadm', 'tsadm', 'ratio t/k'], rows);
}

/** Cold start of bin/tsadm, the single executable and kubeadm against bare `node -e 0` (bench/micro.mjs runColdStart). */
function coldStartTable(cold) {
  const base = cold['node -e 0'].map((r) => r.wallMs);
  const rows = Object.entries(cold).map(([name, runs]) => {
    const w = runs.map((r) => r.wallMs);
    return [name, String(w.length), fmt(median(w)), fmt(median(runs.map((r) => r.cpuMs))), fmt(Math.max(...runs.map((r) => r.maxRssMb))), fmt(pairedRatio(w, base), 2)];
  });
  return table(['command', 'runs', 'wall ms', 'cpu ms', 'max RSS MB', 'ratio to node -e 0'], rows);
}

/** Every target of issue 17 as a value against its bound. */
function targetsTable(results) {
  const rows = [];
  const c = results.cluster;
  const l = results.limits;
  const s = (x) => fmt(x / 1000, 2);
  const yes = (ok) => (ok === undefined ? 'n/a' : ok ? 'yes' : '**no**');
  const col = (runs, path) => runs.map((r) => path.split('.').reduce((o, key) => o?.[key], r));
  if (c?.tsadm.length && c.kubeadm.length) {
    const ratio = (path) => pairedRatio(col(c.tsadm, path), col(c.kubeadm, path));
    const r2 = ratio('worker.readyMs');
    rows.push(['time to a 2-node cluster ≤ 0.6× kubeadm', fmt(r2, 2), yes(Number.isFinite(r2) ? r2 <= 0.6 : undefined)]);
    const initT = median(col(c.tsadm, 'init.wallMs'));
    if (l) {
      const healthy = median(l.init.map((r) => Math.max(r.etcd, r.apiserver, r.controllerManager, r.scheduler)));
      const csr = median(l.init.map((r) => r.csrSigned));
      rows.push([`tsadm init ≤ L_init + 1.5 s (L_init to a signed CSR ${s(csr)} s)`, `${s(initT)} s, ${fmt((initT - csr) / 1000, 2)} s`, yes(initT <= csr + 1500)]);
      rows.push([`  the same against L_init to all four components healthy (${s(healthy)} s)`, `${fmt((initT - healthy) / 1000, 2)} s`, yes(initT <= healthy + 1500)]);
    }
    const ri = ratio('init.wallMs');
    rows.push(['tsadm init ≤ 0.7× kubeadm', fmt(ri, 2), yes(ri <= 0.7)]);
    const joinT = median(col(c.tsadm, 'settledJoin.wallMs'));
    if (l) {
      const lj = median(l.join.map((r) => r.registered));
      rows.push([`join (settled) ≤ L_join + 1.0 s (L_join to registered ${s(lj)} s)`, `${s(joinT)} s, ${fmt((joinT - lj) / 1000, 2)} s`, yes(joinT <= lj + 1000)]);
    }
    const rj = ratio('settledJoin.wallMs');
    rows.push(['join (settled) ≤ 0.7× kubeadm', fmt(rj, 2), yes(rj <= 0.7)]);
    const four = median(c.tsadm.map((r) => (r.concurrentJoins ? Math.max(...r.concurrentJoins.wallMs) : NaN)));
    rows.push(['4 joins at once: all registered ≤ 1.5× a single join', fmt(four / joinT, 2), yes(four <= 1.5 * joinT)]);
    const rc = ratio('init.cpuMs');
    rows.push(['init CPU ≤ 1.0× kubeadm', fmt(rc, 2), yes(rc <= 1.0)]);
    const rjc = ratio('join.cpuMs');
    rows.push(['join CPU ≤ 1.5× kubeadm (join at init\'s return)', fmt(rjc, 2), yes(rjc <= 1.5)]);
    const rjs = ratio('settledJoin.cpuMs');
    rows.push(['  the same for the join on a settled control plane', fmt(rjs, 2), yes(rjs <= 1.5)]);
    const rss = (path) => Math.max(...col(c.tsadm, path).filter(Number.isFinite));
    rows.push(['init peak RSS ≤ 60 MB', `${fmt(rss('init.maxRssMb'))} MB`, yes(rss('init.maxRssMb') <= 60)]);
    rows.push(['join peak RSS ≤ 60 MB', `${fmt(Math.max(rss('join.maxRssMb'), rss('settledJoin.maxRssMb')))} MB`, yes(Math.max(rss('join.maxRssMb'), rss('settledJoin.maxRssMb')) <= 60)]);
  }
  const m = results.micro;
  if (m?.['certs all (RSA-2048)'] && m['kubeconfig all (RSA-2048)']) {
    const sum = (tool) => m['certs all (RSA-2048)'][tool].map((r, i) => r.wallMs + m['kubeconfig all (RSA-2048)'][tool][i].wallMs);
    const r = pairedRatio(sum('tsadm'), sum('kubeadm'));
    rows.push(['certs all + kubeconfig all (RSA-2048) ≤ 0.7× kubeadm', fmt(r, 2), yes(r <= 0.7)]);
  }
  const cold = results.coldStart;
  if (cold) {
    const base = cold['node -e 0'].map((r) => r.wallMs);
    for (const name of ['tsadm version', 'tsadm token generate']) {
      const r = pairedRatio(cold[name].map((x) => x.wallMs), base);
      rows.push([`\`${name.replace('tsadm ', '')}\` cold start ≤ 1.2× \`node -e 0\``, fmt(r, 2), yes(r <= 1.2)]);
    }
    if (cold['tsadm SEA version']) {
      const r = pairedRatio(cold['tsadm SEA version'].map((x) => x.wallMs), cold['tsadm version'].map((x) => x.wallMs));
      rows.push(['the single executable starts at least as fast as bin/tsadm (`version`)', fmt(r, 2), yes(r <= 1.0)]);
    }
  }
  return table(['target (issue 17)', 'result', 'met?'], rows);
}

/** upgrade apply v1.20.3 of a tsadm-made v1.20.2 control plane (bench/upgrade.mjs); tsadm "n/a" when this build has no `upgrade apply`. */
function upgradeTable(upgrade, tsadmUpgrade, kubeadmVersion) {
  const k = upgrade.kubeadm;
  const t = upgrade.tsadm;
  const s = (x) => fmt(x / 1000, 2);
  const row = (label, key, conv = s) => [label, conv(median(pick(k, key))), t.length ? conv(median(pick(t, key))) : 'n/a',
    t.length ? fmt(pairedRatio(pick(t, key), pick(k, key)), 2) : 'n/a'];
  const note = tsadmUpgrade === false ? '; tsadm: no `upgrade apply` in this build' : '';
  return `${k.length} pair(s); kubeadm ${kubeadmVersion ?? '?'}${note}; loads: ${[...k, ...t].map((r) => r.load).join(', ')}\n\n` + table(['upgrade apply v1.20.3 (single control plane)', 'kubeadm', 'tsadm', 'ratio t/k'], [
    row('wall, s (command start → exit, every component restarted)', 'wallMs'),
    row('CPU time (user+sys), s', 'cpuMs'),
    row('max RSS, MB', 'maxRssMb', (x) => fmt(x)),
  ]);
}

/** tsadm against an earlier tsadm and kubeadm: certs all + kubeconfig all, RSA-2048 (bench/baseline.mjs). */
function baselineTable(b) {
  const { kubeadm, baseline, tsadm } = b.runs;
  const row = (label, key, scale) => [
    label, fmt(median(kubeadm.map((r) => r[key])) / scale, 2), fmt(median(baseline.map((r) => r[key])) / scale, 2), fmt(median(tsadm.map((r) => r[key])) / scale, 2),
    fmt(pairedRatio(tsadm.map((r) => r[key]), baseline.map((r) => r[key])), 2), fmt(pairedRatio(tsadm.map((r) => r[key]), kubeadm.map((r) => r[key])), 2),
  ];
  return `${tsadm.length} rounds (order rotated each round); baseline ${b.ref} = ${b.sha.slice(0, 12)}; loads: ${tsadm.map((r) => r.load).join(', ')}\n\n`
    + table(['certs all + kubeconfig all (RSA-2048)', 'kubeadm', 'tsadm baseline', 'tsadm', 'ratio tsadm/baseline', 'ratio tsadm/kubeadm'], [row('wall, s', 'wallMs', 1000), row('CPU (user+sys), s', 'cpuMs', 1000)]);
}

/** The limits and the settling (bench/limits.mjs): medians of milliseconds after the kubelet's start / init's return. */
function limitsTable(l) {
  const s = (xs) => fmt(median(xs) / 1000, 2);
  const col = (runs, key) => runs.map((r) => r[key]);
  const rows = [
    ['L_init: etcd healthy', s(col(l.init, 'etcd'))],
    ['L_init: kube-apiserver healthy', s(col(l.init, 'apiserver'))],
    ['L_init: kube-controller-manager healthy', s(col(l.init, 'controllerManager'))],
    ['L_init: kube-scheduler healthy', s(col(l.init, 'scheduler'))],
    ['**L_init: a CSR signed** (created and approved as soon as the API server answers)', `**${s(col(l.init, 'csrSigned'))}**`],
    ['L_join: Node registered', s(col(l.join, 'registered'))],
    ['**L_join: Node Ready**', `**${s(col(l.join, 'ready'))}**`],
  ];
  return `${l.init.length} run(s) each, fresh machines\n\n` + table(['limit (s, median)', 'value'], rows);
}

/** Node.js 20 against 24 (bench/runtime.mjs): medians per way of running; ratio to Node 20 per round. */
function runtimeTable(rt) {
  const label = {
    old: `bundle on ${rt.runtimes.old.version}`, new: `bundle on ${rt.runtimes.new.version}`,
    launcher: `bin/tsadm on ${rt.runtimes.new.version}`, sea: 'single executable',
  };
  const rows = [];
  for (const [name, r] of Object.entries(rt.cases)) {
    for (const kind of rt.kinds ?? ['old', 'new']) {
      const runs = r[kind];
      if (!runs?.length) continue;
      rows.push([name, label[kind] ?? kind, String(runs.length), fmt(median(pick(runs, 'wallMs'))), fmt(median(pick(runs, 'cpuMs'))),
        fmt(median(pick(runs, 'maxRssMb'))), kind === 'old' ? '1.00' : fmt(pairedRatio(pick(runs, 'wallMs'), pick(r.old, 'wallMs')), 2),
        kind === 'old' ? '1.00' : fmt(pairedRatio(pick(runs, 'maxRssMb'), pick(r.old, 'maxRssMb')), 2), fmt(median(pick(runs, 'load')), 2)]);
    }
  }
  return table(['case', 'how', 'rounds', 'wall ms', 'cpu ms', 'peak RSS MB', 'wall / Node 20', 'RSS / Node 20', 'load'], rows);
}

export function renderReport(results) {
  const e = results.env;
  const parts = [`## Results ${e.date}`, '', `${e.cpu}, ${e.memGb} GiB, Linux ${e.kernel}; kubeadm ${e.versions.kubeadm}, tsadm ${e.versions.tsadm}, Node ${e.versions.node}; load ${e.loadAtStart} → ${e.loadAtEnd}`, ''];
  if (results.micro) parts.push('### Tool-only commands (wall, medians)', '', microTable(results.micro), '');
  if (results.coldStart) parts.push('### Cold start (medians; ratios are medians of per-round ratios)', '', coldStartTable(results.coldStart), '');
  if (results.runtime) parts.push('### Node.js runtimes, same bundle (medians of wall/CPU/peak RSS; ratio: median of per-round ratios)', '', runtimeTable(results.runtime), '');
  if (results.cluster) parts.push('### Full init and join (medians)', '', clusterTable(results.cluster), '');
  if (results.upgrade) parts.push('### Upgrade apply (medians; v1.20.3 = v1.20.2 relabelled)', '', upgradeTable(results.upgrade, results.tsadmUpgrade, e.versions.kubeadmUpgrade), '');
  if (results.limits) parts.push('### Limits (bench/limits.mjs)', '', limitsTable(results.limits), '');
  if (results.cluster?.tsadm.some((r) => r.worker)) {
    const w = waterfallTables(results.cluster);
    parts.push('### Waterfall (bench/waterfall.mjs; picture: bench/results/waterfall.svg)', '', w.milestones, '', w.phases, '',
      'Why the settling takes as long as it does (the representative runs):', '', settlingEvidenceTable(results.cluster), '');
  }
  parts.push('### Targets', '', targetsTable(results), '');
  if (results.baseline) parts.push('### Against an earlier tsadm (medians; ratios are medians of per-round ratios)', '', baselineTable(results.baseline), '');
  return parts.join('\n');
}
