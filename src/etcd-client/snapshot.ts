import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { TsadmError } from '../errors.js';
import { USER_AGENT } from '../user-agent.js';
import { EtcdRequestError, type EtcdTls } from './transport.js';

/**
 * etcd's Maintenance.Snapshot through the JSON gateway (`POST /v3/maintenance/snapshot`, mutual
 * TLS): the gateway streams one JSON object per line, `{"result":{"blob":"<base64>",...}}`, about
 * 32 KiB of the database each, or `{"error":{...}}` when etcd fails mid-stream. Yields the decoded
 * bytes as they arrive, so a snapshot of any size goes to disk without being held in memory. The
 * bytes are etcd's snapshot as `etcdctl snapshot save` writes it: the bbolt file followed by the
 * SHA-256 of it (src/etcd-snapshot/integrity.ts checks that). `idleTimeoutMs` bounds the silence
 * between two chunks, not the whole transfer (a large database takes as long as it takes).
 */
export async function* snapshotStream(endpoint: string, tls: EtcdTls, idleTimeoutMs = 30_000): AsyncGenerator<Buffer> {
  const url = new URL('/v3/maintenance/snapshot', endpoint.endsWith('/') ? endpoint : `${endpoint}/`);
  if (url.protocol !== 'https:') {
    throw new TsadmError('E_INTERNAL', `refusing to talk to etcd over ${url.protocol} (${endpoint}): stacked etcd serves https only`);
  }
  const payload = Buffer.from('{}');
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = https.request(url, {
      method: 'POST', ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: true, agent: false,
      headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length, 'User-Agent': USER_AGENT },
      timeout: idleTimeoutMs,
    }, resolve);
    req.on('timeout', () => req.destroy(new EtcdRequestError(`no answer within ${idleTimeoutMs} ms`, endpoint)));
    req.on('error', (err) => reject(err instanceof EtcdRequestError ? err : new EtcdRequestError(err.message, endpoint)));
    req.end(payload);
  });
  try {
    if ((res.statusCode ?? 0) >= 400) {
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      throw lineError(Buffer.concat(chunks).toString('utf8'), endpoint, res.statusCode);
    }
    let pending = '';
    for await (const c of res) {
      pending += (c as Buffer).toString('latin1');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (line.trim() !== '') yield decodeLine(line, endpoint);
      }
    }
    if (pending.trim() !== '') yield decodeLine(pending, endpoint);
    if (!res.complete) throw new EtcdRequestError('the snapshot stream ended early', endpoint);
  } catch (err) {
    throw err instanceof EtcdRequestError || err instanceof TsadmError ? err : new EtcdRequestError((err as Error).message, endpoint);
  } finally {
    res.destroy();
  }
}

interface SnapshotLine {
  result?: { blob?: string };
  error?: { message?: string; grpc_code?: number; code?: number } | string;
  message?: string;
  code?: number;
}

function decodeLine(line: string, endpoint: string): Buffer {
  let parsed: SnapshotLine;
  try {
    parsed = JSON.parse(line) as SnapshotLine;
  } catch {
    throw new EtcdRequestError(`unexpected line in the snapshot stream: ${line.slice(0, 120)}`, endpoint);
  }
  if (parsed.error !== undefined) throw lineError(line, endpoint);
  return Buffer.from(parsed.result?.blob ?? '', 'base64');
}

function lineError(text: string, endpoint: string, status?: number): EtcdRequestError {
  let parsed: SnapshotLine | undefined;
  try {
    parsed = JSON.parse(text) as SnapshotLine;
  } catch {
    parsed = undefined;
  }
  const e = parsed?.error;
  const message = typeof e === 'object' ? e.message : parsed?.message ?? e;
  const code = typeof e === 'object' ? e.grpc_code ?? e.code : parsed?.code;
  return new EtcdRequestError(message ?? `unexpected answer${status !== undefined ? ` (HTTP ${status})` : ''}: ${text.slice(0, 200)}`, endpoint, code);
}
