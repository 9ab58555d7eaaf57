/**
 * The two wire formats etcd's Maintenance.Snapshot stream needs, and nothing more (pure):
 * - gRPC's length-prefixed messages (a 1-byte compressed flag, a 4-byte big-endian length, the
 *   message) as they arrive cut into HTTP/2 DATA chunks of any size;
 * - protobuf's encoding of one message, SnapshotResponse (rpc.proto: header = 1, remaining_bytes = 2,
 *   blob = 3; etcd 3.5 adds version = 4), of which only `blob` is kept; other fields, known or
 *   not, are skipped by their wire type, as protobuf requires.
 *
 * Why tsadm reads these itself rather than through @grpc/grpc-js and protobufjs (which the CRI
 * client uses): loading those two libraries takes ~70 ms of a ~0.6 s `etcd snapshot save`, the
 * largest part of the gap to etcdctl (docs/decisions.md, decision 14; BENCHMARKS.md).
 */

/** gRPC's frame header: the compressed flag and the message length. */
const FRAME_HEADER = 5;

export class GrpcFrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GrpcFrameError';
  }
}

/**
 * Collects DATA chunks and hands out whole gRPC messages. A message within one chunk is a view of
 * that chunk (no copy); the chunks of one cut across several are joined once, when its last byte
 * has come (so a peer sending tiny frames costs linear time). `maxMessageBytes` bounds what a peer
 * can make this buffer.
 */
export class GrpcFrameReader {
  private parts: Buffer[] = [];
  private buffered = 0;
  /** Header and message bytes of the message being collected, once its header has come. */
  private need: number | undefined;

  constructor(private readonly maxMessageBytes: number) {}

  /** The whole messages CHUNK completes, in order. */
  push(chunk: Buffer): Buffer[] {
    if (chunk.length === 0) return [];
    this.parts.push(chunk);
    this.buffered += chunk.length;
    const out: Buffer[] = [];
    while (this.buffered >= FRAME_HEADER) {
      if (this.need === undefined) {
        const head = this.joined().subarray(0, FRAME_HEADER);
        const flag = head[0];
        if (flag !== 0) {
          throw new GrpcFrameError(flag === 1 ? 'etcd sent a compressed message, which was not asked for' : `a gRPC frame has the flag ${String(flag)}`);
        }
        const length = head.readUInt32BE(1);
        if (length > this.maxMessageBytes) throw new GrpcFrameError(`a gRPC message of ${length} bytes is over the ${this.maxMessageBytes}-byte limit`);
        this.need = FRAME_HEADER + length;
      }
      if (this.buffered < this.need) break;
      const data = this.joined();
      out.push(data.subarray(FRAME_HEADER, this.need));
      const rest = data.subarray(this.need);
      this.parts = rest.length > 0 ? [rest] : [];
      this.buffered = rest.length;
      this.need = undefined;
    }
    return out;
  }

  /** Bytes of an unfinished message (a stream that ends with some is cut). */
  get pendingBytes(): number {
    return this.buffered;
  }

  /** The buffered bytes as one buffer (the chunks joined, and kept joined). */
  private joined(): Buffer {
    if (this.parts.length !== 1) this.parts = [Buffer.concat(this.parts, this.buffered)];
    return this.parts[0] as Buffer;
  }
}

/** The request body of a call whose request message is empty (SnapshotRequest): one empty frame. */
export const EMPTY_GRPC_MESSAGE = Buffer.alloc(FRAME_HEADER);

/** A varint at AT: its value (exact up to 2^53) and where the next field starts. */
function readVarint(buf: Buffer, at: number): { value: number; next: number } {
  let value = 0;
  let scale = 1;
  for (let i = at; i < buf.length && i < at + 10; i++) {
    const byte = buf[i] as number;
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) return { value, next: i + 1 };
    scale *= 128;
  }
  throw new GrpcFrameError('a SnapshotResponse has a cut or overlong varint');
}

/** SnapshotResponse.blob (field 3) of one message: a view of MESSAGE, empty when absent. */
export function snapshotBlob(message: Buffer): Buffer {
  let blob: Buffer = Buffer.alloc(0);
  let at = 0;
  while (at < message.length) {
    const key = readVarint(message, at);
    const field = Math.floor(key.value / 8);
    const wire = key.value % 8;
    at = key.next;
    switch (wire) {
      case 0:
        at = readVarint(message, at).next;
        break;
      case 1:
        at += 8;
        break;
      case 2: {
        const len = readVarint(message, at);
        const end = len.next + len.value;
        if (end > message.length) throw new GrpcFrameError(`a SnapshotResponse field ${field} runs past the message`);
        if (field === 3) blob = message.subarray(len.next, end); // the last one wins, as protobuf says
        at = end;
        break;
      }
      case 5:
        at += 4;
        break;
      default:
        throw new GrpcFrameError(`a SnapshotResponse field ${field} has the unknown wire type ${wire}`);
    }
    if (at > message.length) throw new GrpcFrameError(`a SnapshotResponse field ${field} runs past the message`);
  }
  return blob;
}

/** gRPC's status names for the codes an etcd call can end with (for messages). */
const STATUS_NAMES = ['OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED'];

/**
 * The outcome a call's trailers (or a trailers-only response's headers) carry: undefined while
 * they carry no grpc-status; else the code and, for a failure, a one-line message
 * (grpc-message is percent-encoded on the wire).
 */
export function grpcStatus(headers: Readonly<Record<string, string | string[] | undefined>>): { code: number; message: string } | undefined {
  const raw = headers['grpc-status'];
  if (raw === undefined) return undefined;
  const code = Number(Array.isArray(raw) ? raw[0] : raw);
  if (!Number.isInteger(code)) return { code: 2, message: `etcd answered with the grpc-status ${String(raw)}` };
  const text = headers['grpc-message'];
  let message = typeof text === 'string' ? text : '';
  try {
    message = decodeURIComponent(message);
  } catch {
    // kept as sent
  }
  return { code, message: message || (STATUS_NAMES[code] ?? `gRPC status ${code}`) };
}
