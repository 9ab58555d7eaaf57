// Pure helpers for the waterfall: reading bench/lib/stamped.sh output into phase segments, and
// the other probes' "name epoch" lines. No effects.

/**
 * stamped.sh output → { startMs, endMs, code, wallMs, cpuMs, maxRssMb, lines: [{ t, text }], text }
 * (epoch milliseconds; text is the command's output without the stamps, for the older parsers).
 */
export function parseStamped(stdout) {
  const out = { startMs: NaN, endMs: NaN, code: NaN, wallMs: NaN, cpuMs: NaN, maxRssMb: NaN, lines: [] };
  for (const raw of stdout.split('\n')) {
    let m;
    if ((m = /^start (\d+\.\d+)$/.exec(raw))) out.startMs = Number(m[1]) * 1000;
    else if ((m = /^end (\d+\.\d+) (\d+)$/.exec(raw))) {
      out.endMs = Number(m[1]) * 1000;
      out.code = Number(m[2]);
    } else if ((m = /^time ([\d.]+) ([\d.]+) ([\d.]+) (\d+)$/.exec(raw))) {
      out.wallMs = Number(m[1]) * 1000;
      out.cpuMs = (Number(m[2]) + Number(m[3])) * 1000;
      out.maxRssMb = Number(m[4]) / 1024;
    } else if ((m = /^(\d+\.\d+) (.*)$/.exec(raw))) out.lines.push({ t: Number(m[1]) * 1000, text: m[2] });
  }
  out.text = out.lines.map((l) => l.text).join('\n');
  return out;
}

/**
 * Phase segments from stamped lines: a segment per run of lines with the same kubeadm-style
 * "[prefix]" (both tools print them), from its first line to the next segment's first line (the
 * last one to the command's exit); lines without a prefix stay in the current segment. What comes
 * before the first prefixed line is "start-up" (process start, configuration loading). Times in
 * milliseconds relative to ORIGIN.
 */
export function segments(run, origin = run.startMs) {
  const marks = [{ label: 'start-up', t: run.startMs }];
  for (const { t, text } of run.lines) {
    const m = /^\[([a-z][a-z-]*)\]/.exec(text);
    if (m && m[1] !== marks[marks.length - 1].label) marks.push({ label: m[1], t });
  }
  return marks.map((s, i) => ({ label: s.label, start: Math.round(s.t - origin), end: Math.round((marks[i + 1]?.t ?? run.endMs) - origin) }));
}

/** Epoch ms of the first stamped line matching RE, or NaN. */
export function lineAt(run, re) {
  return run.lines.find((l) => re.test(l.text))?.t ?? NaN;
}

/** nodes-watch.sh output → { registered: { node: epochMs }, ready: { node: epochMs } }. */
export function parseNodesWatch(stdout) {
  const out = { registered: {}, ready: {} };
  for (const m of stdout.matchAll(/^(registered|ready) (\S+) (\d+\.\d+)$/gm)) out[m[1]][m[2]] = Number(m[3]) * 1000;
  return out;
}
