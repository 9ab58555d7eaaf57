/**
 * Splits a kubeadm config file into YAML documents and parses each one, defensively: the file is
 * capped at 1 MiB; aliases are allowed (kubeadm's YAML reader accepts them) but bounded, so a
 * "billion laughs" bomb is refused (src/yaml/alias-limits.ts, applied by src/yaml/read.ts); and the core schema keeps timestamps
 * and "yes"/"no" as plain strings, as kubeadm's JSON-based decoder sees them.
 */
import * as yaml from 'js-yaml';
import { YamlLimitError, loadYamlAll } from '../yaml/read.js';

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
    // tsadm's one YAML reader (src/yaml/read.ts): the alias count and the expanded size are
    // bounded there; the parser's own maxDepth (100 collections) stops a nesting bomb.
    // loadAll, because js-yaml 5's load() throws on a document with nothing in it (only
    // comments), which here is an empty document to skip, as Kubernetes' reader skips it.
    const values = loadYamlAll(chunk.text, { schema: yaml.CORE_SCHEMA });
    if (values.length > 1) throw new yaml.YAMLException('expected a single document in the stream, but found more');
    return values[0];
  } catch (err) {
    if (err instanceof YamlLimitError) {
      const where = err.mark ? `line ${chunk.line + err.mark.line}, column ${err.mark.column + 1}` : `line ${chunk.line + firstContentLine(chunk.text)}`;
      errors.push(`${source}: ${where}: ${err.message}`);
    } else {
      errors.push(`${source}: ${syntaxMessage(err, chunk)}`);
    }
    return undefined;
  }
}

function syntaxMessage(err: unknown, chunk: Chunk): string {
  if (!(err instanceof yaml.YAMLException)) return `YAML syntax error: ${(err as Error).message}`;
  const where = err.mark ? `line ${chunk.line + err.mark.line}, column ${err.mark.column + 1}: ` : '';
  return `${where}YAML syntax error: ${err.reason}`;
}
