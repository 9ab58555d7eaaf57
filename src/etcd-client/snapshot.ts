import http2 from 'node:http2';
import { TsadmError } from '../errors.js';
import { USER_AGENT } from '../version.js';
import { EMPTY_GRPC_MESSAGE, GrpcFrameReader, grpcStatus, snapshotBlob } from './grpc-wire.js';
import { EtcdRequestError, type EtcdTls } from './transport.js';

/**
 * etcd's Maintenance.Snapshot over native gRPC: one HTTP/2 POST with mutual TLS (the
 * healthcheck-client identity), answered by a stream of SnapshotResponse messages, each up to
 * 32 KiB of the database (`blob`); yields the bytes as they arrive, so a snapshot of any size goes
 * to disk without being held in memory, and the consumer's pace is etcd's (HTTP/2 flow control).
 * The bytes are etcd's snapshot as `etcdctl snapshot save` writes it: the bbolt file followed by
 * its SHA-256 (src/etcd-snapshot/integrity.ts checks that).
 *
 * Why not the JSON gateway the membership calls use (transport.ts): the gateway re-encodes every
 * chunk as base64 inside JSON, 3.8× etcdctl's time on a 59 MiB database. Why node:http2 and not
 * @grpc/grpc-js + protobufjs (which this used to, and the CRI client still uses): one server
 * stream of one message type needs gRPC's framing and one protobuf message (grpc-wire.ts), and
 * loading those two libraries was the largest part of the remaining gap to etcdctl
 * (docs/decisions.md, decision 65).
 * `idleTimeoutMs` bounds the silence between two chunks, not the whole transfer.
 */

/** HTTP/2's default 64 KiB window lets etcd send two 32 KiB messages per round trip; etcdctl's Go client grows its window to megabytes. */
const WINDOW_BYTES = 16 * 1024 * 1024;
/** etcd sends 32 KiB blobs; a message far larger is not a snapshot stream. */
const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
const SNAPSHOT_PATH = '/etcdserverpb.Maintenance/Snapshot';

/** "https://10.0.0.1:2379" → its origin; only https (stacked etcd serves nothing else). */
function etcdOrigin(endpoint: string): string {
  const url = new URL(endpoint);
  if (url.protocol !== 'https:') {
    throw new TsadmError('E_INTERNAL', `refusing to talk to etcd over ${url.protocol} (${endpoint}): stacked etcd serves https only`);
  }
  return `https://${url.hostname}:${url.port || '2379'}`;
}

export async function* snapshotStream(endpoint: string, tls: EtcdTls, idleTimeoutMs = 30_000): AsyncGenerator<Buffer> {
  const origin = etcdOrigin(endpoint);
  const fail = (message: string, code?: number): EtcdRequestError => new EtcdRequestError(message, endpoint, code);
  const session = http2.connect(origin, { ca: tls.ca, cert: tls.cert, key: tls.key, settings: { initialWindowSize: WINDOW_BYTES } });
  // A session error also reaches the stream (as its error); this keeps it from being unhandled.
  session.on('error', () => undefined);
  session.once('connect', () => session.setLocalWindowSize(WINDOW_BYTES));
  const call = session.request({
    ':method': 'POST', ':path': SNAPSHOT_PATH, 'content-type': 'application/grpc', te: 'trailers', 'user-agent': USER_AGENT, 'grpc-accept-encoding': 'identity',
  });
  let status: { code: number; message: string } | undefined;
  let httpStatus: number | undefined;
  call.on('response', (headers) => {
    httpStatus = Number(headers[':status']);
    status = grpcStatus(headers); // a trailers-only answer (an error before any message)
  });
  call.on('trailers', (trailers: http2.IncomingHttpHeaders) => {
    status = grpcStatus(trailers) ?? status;
  });
  call.on('error', () => undefined); // seen again by the iteration below
  let timedOut = false;
  call.setTimeout(idleTimeoutMs, () => {
    timedOut = true;
    call.close(http2.constants.NGHTTP2_CANCEL);
  });
  call.end(EMPTY_GRPC_MESSAGE);
  const frames = new GrpcFrameReader(MAX_MESSAGE_BYTES);
  try {
    try {
      for await (const chunk of call as AsyncIterable<Buffer>) {
        if (status !== undefined && status.code !== 0) break;
        for (const message of frames.push(chunk)) {
          const blob = snapshotBlob(message);
          if (blob.length > 0) yield blob;
        }
      }
    } catch (err) {
      if (timedOut) throw fail(`no data for ${idleTimeoutMs} ms`, 1);
      if (status !== undefined && status.code !== 0) throw fail(status.message, status.code);
      throw fail(err instanceof Error ? err.message : String(err));
    }
    if (timedOut) throw fail(`no data for ${idleTimeoutMs} ms`, 1);
    if (status === undefined) {
      throw fail(httpStatus !== undefined && httpStatus !== 200 ? `etcd answered HTTP ${httpStatus}, not gRPC` : 'the snapshot stream ended without a gRPC status');
    }
    if (status.code !== 0) throw fail(status.message, status.code);
    if (frames.pendingBytes > 0) throw fail(`the snapshot stream ended inside a message (${frames.pendingBytes} bytes of it)`);
  } finally {
    if (!call.closed) call.close(http2.constants.NGHTTP2_CANCEL);
    session.close();
    session.unref();
  }
}
