// Pure helpers: medians, ratios, table formatting. No effects.

export function median(xs) {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** Median of the per-pair ratios a[i]/b[i] (pairs ran back to back, so they share the noise). */
export function pairedRatio(a, b) {
  const r = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (b[i] > 0) r.push(a[i] / b[i]);
  return median(r);
}

export function fmt(x, digits = 0) {
  return Number.isFinite(x) ? x.toFixed(digits) : 'n/a';
}

/** A Markdown table from a header row and rows of cells. */
export function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
