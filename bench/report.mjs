// Renders bench results (see bench.mjs) as Markdown tables: medians and paired ratios.
import { fmt, median, pairedRatio, table } from './lib/stats.mjs';

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
  const row = (label, key, conv = s) => [label, conv(median(pick(ki, key))), conv(median(pick(ti, key))), fmt(pairedRatio(pick(ti, key), pick(ki, key)), 2)];
  const rows = [
    row('init wall, s (command start → exit, control plane healthy)', 'wallMs'),
    row('  of which waiting for components (kubelet + control plane, from the tool log), s', 'waitMs'),
    row("  the rest: the tool's own work (certs, files, API writes), s", 'ownMs'),
    row('init CPU time (user+sys), s', 'cpuMs'),
    row('init max RSS, MB', 'maxRssMb', (x) => fmt(x)),
  ];
  const kj = k.map((r) => r.join).filter(Boolean);
  const tj = t.map((r) => r.join).filter(Boolean);
  if (kj.length) {
    const jrow = (label, key, conv = s) => [label, conv(median(pick(kj, key))), tj.length ? conv(median(pick(tj, key))) : 'not measurable', tj.length ? fmt(pairedRatio(pick(tj, key), pick(kj, key)), 2) : 'n/a'];
    rows.push(jrow('join wall to Node registered, s', 'wallMs'), jrow('join CPU time, s', 'cpuMs'), jrow('join max RSS, MB', 'maxRssMb', (x) => fmt(x)));
  }
  return `${k.length} pair(s); init loads: ${[...ki, ...ti].map((r) => r.load).join(', ')}\n\n` + table(['full cluster', 'kubeadm', 'tsadm', 'ratio t/k'], rows);
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
  for (const tool of ['kubeadm', 'tsadm']) {
    const runs = l.settling[tool].map((r) => ({ ...r.at, signedAfterReturn: (r.at.csrSigned ?? NaN) + (r.probeLeadMs ?? 0) }));
    rows.push([`settling after \`${tool} init\` returned: a CSR signed`, s(col(runs, 'signedAfterReturn'))]);
  }
  return `${l.init.length} run(s) each, fresh machines\n\n` + table(['limit (s, median)', 'value'], rows);
}

export function renderReport(results) {
  const e = results.env;
  const parts = [`## Results ${e.date}`, '', `${e.cpu}, ${e.memGb} GiB, Linux ${e.kernel}; kubeadm ${e.versions.kubeadm}, tsadm ${e.versions.tsadm}, Node ${e.versions.node}; load ${e.loadAtStart} → ${e.loadAtEnd}`, ''];
  if (results.micro) parts.push('### Tool-only commands (wall, medians)', '', microTable(results.micro), '');
  if (results.cluster) parts.push('### Full init and join (medians)', '', clusterTable(results.cluster), '');
  if (results.upgrade) parts.push('### Upgrade apply (medians; v1.20.3 = v1.20.2 relabelled)', '', upgradeTable(results.upgrade, results.tsadmUpgrade, e.versions.kubeadmUpgrade), '');
  if (results.limits) parts.push('### Limits and settling (bench/limits.mjs)', '', limitsTable(results.limits), '');
  if (results.baseline) parts.push('### Against an earlier tsadm (medians; ratios are medians of per-round ratios)', '', baselineTable(results.baseline), '');
  return parts.join('\n');
}
