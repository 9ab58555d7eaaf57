/**
 * Splits a kubeadm config file into YAML documents and parses each one, defensively: the file is
 * capped at 1 MiB, anchors (and so aliases, the "billion laughs" bomb) are refused, and the core
 * schema keeps timestamps and "yes"/"no" as plain strings, as kubeadm's JSON-based decoder sees them.
 */
import yaml from 'js-yaml';

export const MAX_CONFIG_BYTES = 1024 * 1024;

interface YamlDocument {
  /** 1-based position of the document in the file. */
  readonly index: number;
  /** 1-based line where the document starts. */
  readonly line: number;
  readonly value: unknown;
}

export interface ParsedYaml {
  readonly documents: readonly YamlDocument[];
  /** One line per problem; parsing stops at the first syntax error of each document. */
  readonly errors: readonly string[];
}

class AnchorRefused extends Error {
  constructor(readonly anchor: string, readonly line: number) {
    super(`YAML anchors and aliases are not allowed (anchor "&${anchor}")`);
  }
}

/** Parses every document of `text`; `source` names the file in messages. */
export function parseYamlDocuments(text: string, source: string): ParsedYaml {
  if (Buffer.byteLength(text, 'utf8') > MAX_CONFIG_BYTES) {
    return { documents: [], errors: [`${source}: the file is larger than 1 MiB; refusing to parse it`] };
  }
  const documents: YamlDocument[] = [];
  const errors: string[] = [];
  for (const chunk of splitDocuments(text, source, errors)) {
    const value = parseChunk(chunk, source, errors);
    // Empty documents (only comments or whitespace, e.g. after a leading "---") carry nothing.
    if (value === undefined || value === null) continue;
    documents.push({ index: documents.length + 1, line: chunk.line + firstContentLine(chunk.text), value });
  }
  return { documents, errors };
}

interface Chunk {
  readonly line: number;
  readonly text: string;
}

/**
 * Cuts the text at "---" lines, as Kubernetes' YAML reader does: the separator may only be
 * followed by spaces or a comment. A separator at column 0 cannot occur inside a document's
 * content, so cutting before parsing is safe and gives each document its starting line.
 */
function splitDocuments(text: string, source: string, errors: string[]): Chunk[] {
  const lines = text.split(/\r?\n/);
  const chunks: Chunk[] = [];
  let start = 0;
  const push = (end: number): void => {
    chunks.push({ line: start + 1, text: lines.slice(start, end).join('\n') });
  };
  lines.forEach((line, i) => {
    if (!line.startsWith('---')) return;
    const rest = line.slice(3).trim();
    if (rest !== '' && !rest.startsWith('#')) {
      errors.push(`${source}: line ${i + 1}: invalid YAML document separator "${line}"`);
    }
    push(i);
    start = i + 1;
  });
  push(lines.length);
  return chunks;
}

/** Offset of the first line that is neither blank nor a comment (where a document "starts" for a reader). */
function firstContentLine(text: string): number {
  const i = text.split('\n').findIndex((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  return Math.max(i, 0);
}

function parseChunk(chunk: Chunk, source: string, errors: string[]): unknown {
  try {
    return yaml.load(chunk.text, {
      schema: yaml.CORE_SCHEMA,
      listener(event, state) {
        // Every alias needs an anchor, so refusing anchors refuses aliases and their expansion.
        const anchor = (state as yaml.State & { anchor?: string | null }).anchor;
        if (event === 'close' && typeof anchor === 'string') throw new AnchorRefused(anchor, state.line);
      },
    });
  } catch (err) {
    if (err instanceof AnchorRefused) {
      errors.push(`${source}: line ${chunk.line + err.line}: ${err.message}`);
    } else if (err instanceof yaml.YAMLException) {
      const mark = err.mark as { line?: number; column?: number } | undefined;
      const where = mark?.line !== undefined ? `line ${chunk.line + mark.line}, column ${(mark.column ?? 0) + 1}: ` : '';
      errors.push(`${source}: ${where}YAML syntax error: ${err.reason}`);
    } else {
      errors.push(`${source}: YAML syntax error: ${(err as Error).message}`);
    }
    return undefined;
  }
}
