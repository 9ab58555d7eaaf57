/**
 * gRPC's message framing and SnapshotResponse's protobuf encoding, as src/etcd-client/grpc-wire.ts
 * reads them. The encoder here is protobufjs (a dependency, used by the CRI client) with etcd's
 * message definition, so the decoder is checked against a real protobuf implementation, not
 * against bytes written by hand. The stream itself runs against real etcd 3.4 and 3.5 in
 * test/unit/etcd-snapshot/save.test.ts.
 */
import protobuf from 'protobufjs';
import { EMPTY_GRPC_MESSAGE, GrpcFrameError, GrpcFrameReader, grpcStatus, snapshotBlob } from '../../../src/etcd-client/grpc-wire.js';

// etcd's rpc.proto (3.5: `version` added as field 4), with fields tsadm never reads.
const root = protobuf.parse(`
syntax = "proto3";
package etcdserverpb;
message ResponseHeader { uint64 cluster_id = 1; uint64 member_id = 2; int64 revision = 3; uint64 raft_term = 4; }
message SnapshotResponse { ResponseHeader header = 1; uint64 remaining_bytes = 2; bytes blob = 3; string version = 4; fixed64 f = 9; fixed32 g = 10; }
`, { keepCase: true }).root;
const Response = root.lookupType('etcdserverpb.SnapshotResponse');

function encode(fields: Record<string, unknown>): Buffer {
  return Buffer.from(Response.encode(Response.create(fields)).finish());
}

function frame(message: Buffer, flag = 0): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flag;
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}

describe('snapshotBlob', () => {
  test('takes the blob and skips every other field, known or not, of every wire type', () => {
    const blob = Buffer.from('bbolt bytes \u0000\u00ff'.repeat(100));
    const message = encode({
      header: { cluster_id: '18446744073709551615', member_id: 42, revision: 7, raft_term: 3 },
      remaining_bytes: '9007199254740993', blob, version: '3.5.30', f: 5, g: 6,
    });
    expect(snapshotBlob(message)).toEqual(blob);
  });

  test('a message without a blob (the last one may carry only remaining_bytes) has none', () => {
    expect(snapshotBlob(encode({ remaining_bytes: 0, header: { revision: 1 } }))).toHaveLength(0);
    expect(snapshotBlob(Buffer.alloc(0))).toHaveLength(0);
  });

  test('a field that runs past the message, a cut varint or an unknown wire type is refused', () => {
    const good = encode({ blob: Buffer.alloc(100, 1) });
    expect(() => snapshotBlob(good.subarray(0, good.length - 1))).toThrow(/field 3 runs past the message/);
    expect(() => snapshotBlob(Buffer.from([0x10, 0xff]))).toThrow(GrpcFrameError);
    expect(() => snapshotBlob(Buffer.from([0x1b]))).toThrow(/unknown wire type 3/);
  });
});

describe('GrpcFrameReader', () => {
  const messages = [Buffer.alloc(0), Buffer.alloc(40_000, 7), Buffer.from('x'), Buffer.alloc(70_000, 9)];
  const stream = Buffer.concat(messages.map((m) => frame(m)));

  test.each([1, 5, 6, 16_384, 40_004, stream.length])('messages come out whole and in order from chunks of %i bytes', (size) => {
    const reader = new GrpcFrameReader(1 << 20);
    const out: Buffer[] = [];
    for (let at = 0; at < stream.length; at += size) out.push(...reader.push(stream.subarray(at, at + size)));
    expect(out).toEqual(messages);
    expect(reader.pendingBytes).toBe(0);
  });

  test('a stream cut inside a message leaves its bytes pending', () => {
    const reader = new GrpcFrameReader(1 << 20);
    expect(reader.push(stream.subarray(0, 5 + 5 + 100))).toEqual([messages[0]]);
    expect(reader.pendingBytes).toBe(105);
  });

  test('a message inside one chunk is a view of it, not a copy', () => {
    const chunk = frame(Buffer.from('hello'));
    const [m] = new GrpcFrameReader(100).push(chunk);
    expect(m?.buffer).toBe(chunk.buffer);
  });

  test('a compressed message, an unknown flag or a length over the limit is refused', () => {
    expect(() => new GrpcFrameReader(100).push(frame(Buffer.from('z'), 1))).toThrow(/compressed message, which was not asked for/);
    expect(() => new GrpcFrameReader(100).push(frame(Buffer.from('z'), 4))).toThrow(/flag 4/);
    expect(() => new GrpcFrameReader(100).push(frame(Buffer.alloc(101)).subarray(0, 5))).toThrow(/101 bytes is over the 100-byte limit/);
  });

  test('the request of an empty message is one empty frame', () => {
    expect([...EMPTY_GRPC_MESSAGE]).toEqual([0, 0, 0, 0, 0]);
  });
});

describe('grpcStatus', () => {
  test('none until grpc-status is there; OK; a failure with its percent-decoded message or its code name', () => {
    expect(grpcStatus({ ':status': '200', 'content-type': 'application/grpc' })).toBeUndefined();
    expect(grpcStatus({ 'grpc-status': '0' })).toEqual({ code: 0, message: 'OK' });
    expect(grpcStatus({ 'grpc-status': '7', 'grpc-message': 'etcdserver:%20permission%20denied' })).toEqual({ code: 7, message: 'etcdserver: permission denied' });
    expect(grpcStatus({ 'grpc-status': '14' })).toEqual({ code: 14, message: 'UNAVAILABLE' });
    expect(grpcStatus({ 'grpc-status': 'x' })).toEqual({ code: 2, message: 'etcd answered with the grpc-status x' });
    expect(grpcStatus({ 'grpc-status': '2', 'grpc-message': '%E0%A4%A' })).toEqual({ code: 2, message: '%E0%A4%A' });
  });
});
