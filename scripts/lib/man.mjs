// Man pages from the CLI's own help (scripts/package-deb.mjs): yargs' --help text turned into
// roff, so the pages never disagree with `tsadm … --help`. Pure functions of the help text.

/** roff-escape one line of text: backslashes, minus signs, and a leading dot or quote. */
function esc(text) {
  const s = text.replace(/\\/g, '\\e').replace(/-/g, '\\-');
  return /^[.']/.test(s) ? `\\&${s}` : s;
}

const SECTION = /^([A-Z][A-Za-z ]*):$/;

/**
 * Splits yargs help into its usage line, description and sections. A section entry starts at an
 * indent of at most 6 (`  -o, --output  …`, `      --config  …`, `  tsadm init phase  …`);
 * deeper lines continue the entry before them (yargs wraps descriptions and right-aligns types).
 */
function parseHelp(help) {
  const lines = help.replace(/\s+$/, '').split('\n');
  const usage = (lines.shift() ?? '').trim();
  const description = [];
  const sections = [];
  let current;
  for (const line of lines) {
    const header = SECTION.exec(line);
    if (header) {
      current = { title: header[1], entries: [] };
      sections.push(current);
      continue;
    }
    if (!current) {
      description.push(line.trimEnd());
      continue;
    }
    if (line.trim() === '') continue;
    const indent = line.length - line.trimStart().length;
    const last = current.entries[current.entries.length - 1];
    if (indent <= 6 || !last) {
      const [term, ...rest] = line.trim().split(/\s{2,}/);
      current.entries.push({ term, text: rest.join(' ') });
    } else {
      last.text = `${last.text} ${line.trim()}`.trim();
    }
  }
  for (const section of sections) for (const e of section.entries) e.text = e.text.replace(/\s+/g, ' ');
  // A paragraph whose lines are indented (yargs usage examples) keeps its lines; others are text.
  const paragraphs = description.join('\n').split(/\n{2,}/).filter((p) => p.trim() !== '');
  return { usage, paragraphs, sections };
}

function oneLine(text) {
  return text.replace(/\s+/g, ' ').trim();
}

/** A NAME line as man pages write it: lower case first ("run this…"; "CRI…" stays), no final period. */
function manSummary(text) {
  const s = oneLine(text).replace(/\.$/, '');
  return /^[A-Z][a-z]/.test(s) ? s[0].toLowerCase() + s.slice(1) : s;
}

/** The page's name for a command line: "tsadm init phase" → "tsadm-init-phase". */
export function pageName(words) {
  return words.join('-');
}

/**
 * A man page (section 8: tsadm administers the machine as root) for the command `words`, from its
 * help text. `seeAlso` are the page names of its children, listed under SEE ALSO. `summary` (the
 * one line the parent's Commands section gives the command, or tsadm's own for tsadm(8)) makes
 * NAME and `synopsis` (`tsadm join [api-server-endpoint] [flags]`) SYNOPSIS, as a man page reads;
 * without them both come from the help text. A first help line that is not a usage line of the
 * command is description.
 */
export function helpToMan({ words, help, version, date, seeAlso = [], summary, synopsis }) {
  const command = words.join(' ');
  const first = help.trimStart().split('\n', 1)[0].trim();
  const isUsage = first === command || first.startsWith(`${command} `);
  // Without a usage line the help starts with its description: parse it as such.
  const { usage: helpUsage, paragraphs, sections } = parseHelp(isUsage ? help : `\n${help}`);
  const usage = synopsis ?? (isUsage ? helpUsage : `${command} [flags]`);
  const name = pageName(words);
  const out = [
    `.\\" Generated from \`${words.join(' ')} --help\` by scripts/package-deb.mjs; do not edit.`,
    `.TH "${name.toUpperCase()}" "8" "${date}" "tsadm ${version}" "System Administration"`,
    // No hyphenation, ragged right: flags stay whole and searchable.
    '.nh',
    '.ad l',
    '.SH NAME',
    `${esc(name)} \\- ${esc(summary === undefined ? oneLine(paragraphs[0] ?? command) : manSummary(summary))}`,
    '.SH SYNOPSIS',
    `.B ${esc(usage)}`,
  ];
  if (paragraphs.length > 0) {
    out.push('.SH DESCRIPTION');
    paragraphs.forEach((p, i) => {
      if (i > 0) out.push('.PP');
      const lines = p.split('\n');
      if (lines.some((l) => /^\s/.test(l))) out.push('.nf', ...lines.map((l) => esc(l.replace(/^ {2}/, ''))), '.fi');
      else out.push(esc(oneLine(p)));
    });
  }
  for (const section of sections) {
    out.push(`.SH ${esc(section.title.toUpperCase())}`);
    for (const { term, text } of section.entries) {
      out.push('.TP', `.B ${esc(term)}`, esc(text || ' '));
    }
  }
  if (seeAlso.length > 0) {
    out.push('.SH SEE ALSO', seeAlso.map((n, i) => `.BR ${esc(n)} (8)${i < seeAlso.length - 1 ? ',' : ''}`).join('\n'));
  }
  return `${out.join('\n')}\n`;
}

/**
 * The subcommands listed in a help text's Commands section, each with its usage as listed and its
 * one-line description: "tsadm join [api-server-endpoint]  Run this on …" →
 * { words: ["join"], usage: "tsadm join [api-server-endpoint]", summary: "Run this on …" }.
 */
export function commandEntries(help) {
  const commands = parseHelp(help).sections.find((s) => s.title === 'Commands');
  if (!commands) return [];
  return commands.entries
    .map(({ term, text }) => ({ words: term.split(/\s+/).filter((w) => !/^[<[]/.test(w)).slice(1), usage: term, summary: oneLine(text) }))
    .filter((e) => e.words.length > 0);
}

/** The subcommands listed in a help text's Commands section: "tsadm init phase  …" → ["init", "phase"]. */
export function subcommands(help) {
  return commandEntries(help).map((e) => e.words);
}
