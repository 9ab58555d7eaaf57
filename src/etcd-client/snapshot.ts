import { TsadmError } from '../errors.js';
import { USER_AGENT } from '../version.js';
import { EtcdRequestError, type EtcdTls } from './transport.js';

/**
 * etcd's Maintenance.Snapshot over native gRPC (@grpc/grpc-js + protobufjs, as the CRI client;
 * mutual TLS with the healthcheck-client identity). A server stream of SnapshotResponse messages,
 * each up to 32 KiB of the database (`blob`); yields the bytes as they arrive, so a snapshot of
 * any size goes to disk without being held in memory. The bytes are etcd's snapshot as
 * `etcdctl snapshot save` writes it: the bbolt file followed by its SHA-256
 * (src/etcd-snapshot/integrity.ts checks that).
 *
 * Why not the JSON gateway the membership calls use (transport.ts): the gateway re-encodes every
 * chunk as base64 inside JSON, and on a 59 MiB database that made the save 3.8× slower than
 * etcdctl (docs/decisions.md, BENCHMARKS.md "etcd snapshot save").
 * `idleTimeoutMs` bounds the silence between two chunks, not the whole transfer.
 */
const PROTO = `
syntax = "proto3";
package etcdserverpb;
message SnapshotRequest {}
message ResponseHeader { uint64 cluster_id = 1; uint64 member_id = 2; int64 revision = 3; uint64 raft_term = 4; }
message SnapshotResponse { ResponseHeader header = 1; uint64 remaining_bytes = 2; bytes blob = 3; }
`;

/** "https://10.0.0.1:2379" → "10.0.0.1:2379" (gRPC target); brackets kept for IPv6. */
function grpcTarget(endpoint: string): string {
  const url = new URL(endpoint);
  if (url.protocol !== 'https:') {
    throw new TsadmError('E_INTERNAL', `refusing to talk to etcd over ${url.protocol} (${endpoint}): stacked etcd serves https only`);
  }
  return `${url.hostname}:${url.port || '2379'}`;
}

export async function* snapshotStream(endpoint: string, tls: EtcdTls, idleTimeoutMs = 30_000): AsyncGenerator<Buffer> {
  const target = grpcTarget(endpoint);
  const [grpcModule, protobufModule] = await Promise.all([import('@grpc/grpc-js'), import('protobufjs')]);
  const grpc = cjs(grpcModule);
  const protobuf = cjs(protobufModule);
  const Response = protobuf.parse(PROTO, { keepCase: true }).root.lookupType('etcdserverpb.SnapshotResponse');
  const buf = (v: string | Buffer): Buffer => (typeof v === 'string' ? Buffer.from(v) : v);
  const client = new grpc.Client(target, grpc.credentials.createSsl(buf(tls.ca), buf(tls.key), buf(tls.cert)), {
    'grpc.primary_user_agent': USER_AGENT,
    'grpc.max_receive_message_length': 8 * 1024 * 1024,
    // HTTP/2's default 64 KiB window lets etcd send two 32 KiB messages per round trip; the Go
    // client etcdctl grows its window (BDP) to megabytes. 16 MiB here (grpc-js's option).
    'grpc-node.flow_control_window': 16 * 1024 * 1024,
  });
  const call = client.makeServerStreamRequest(
    '/etcdserverpb.Maintenance/Snapshot',
    () => Buffer.alloc(0),
    (b: Buffer) => (Response.decode(b) as unknown as { blob?: Uint8Array }).blob ?? new Uint8Array(0),
    {},
    new grpc.Metadata(),
  );
  let idle: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(idle);
    idle = setTimeout(() => call.cancel(), idleTimeoutMs);
  };
  call.on('status', () => clearTimeout(idle));
  try {
    arm();
    for await (const blob of call as AsyncIterable<Uint8Array>) {
      arm();
      yield Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
    }
  } catch (err) {
    const e = err as { code?: number; details?: string; message?: string };
    const timedOut = e.code === grpc.status.CANCELLED;
    throw new EtcdRequestError(timedOut ? `no data for ${idleTimeoutMs} ms` : (e.details ?? e.message ?? String(err)), endpoint, e.code);
  } finally {
    clearTimeout(idle);
    call.cancel();
    client.close();
  }
}

/** The CommonJS module object behind a dynamic import, bundled or not. */
function cjs<T extends object>(mod: T): T {
  const fallback = (mod as { default?: T }).default;
  return fallback !== undefined && typeof fallback === 'object' ? fallback : mod;
}
