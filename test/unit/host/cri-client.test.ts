/**
 * The CRI client against a gRPC server that speaks kubelet v1.20's own CRI schema (k8s.io/cri-api
 * runtime/v1alpha2 api.proto from the provisioned Kubernetes source), over a unix socket: it proves
 * the installed @grpc/grpc-js and protobufjs encode what a runtime expects, and that the client
 * falls back from runtime.v1 to v1alpha2 when the runtime answers UNIMPLEMENTED.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpcModule from '@grpc/grpc-js';
import * as protobufModule from 'protobufjs';
import { connectCri } from '../../../src/host/cri-client.js';
import { cacheDir } from '../../helpers/components.js';

// Both are CommonJS; under jest's ESM loader the namespace may carry them as `default`.
const grpc = (grpcModule as unknown as { default?: typeof grpcModule }).default ?? grpcModule;
const protobuf = (protobufModule as unknown as { default?: typeof protobufModule }).default ?? protobufModule;

/** Kept in the cache by the provisioning's cri-proto stage (scripts/e2e/provision.sh). */
const PROTO = path.join(cacheDir(), 'cri-api/v1alpha2/api.proto');

/** The real schema without its gogoproto import and options (Go code generation only). */
function criRoot(): protobufModule.Root {
  const text = readFileSync(PROTO, 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('import "github.com/gogo') && !l.startsWith('option (gogoproto'))
    .join('\n');
  return protobuf.parse(text, { keepCase: true }).root;
}

// Not skipped when the schema is missing: `npm test` provisions it, so its absence is a failure.
describe('connectCri', () => {
  test('kubelet 1.20\'s CRI schema is provisioned', () => {
    expect(existsSync(PROTO)).toBe(true);
  });

  let dir: string;
  let server: grpcModule.Server;
  const calls: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tsadm-cri-'));
    const root = criRoot();
    const type = (n: string) => root.lookupType(`runtime.v1alpha2.${n}`);
    const method = (name: string, req: string, res: string, handle: (request: Record<string, unknown>) => object | grpcModule.ServiceError, service = 'RuntimeService') => {
      const reqType = type(req);
      const resType = type(res);
      return {
        definition: {
          path: `/runtime.v1alpha2.${service}/${name}`,
          requestStream: false,
          responseStream: false,
          requestSerialize: (v: object) => Buffer.from(reqType.encode(reqType.fromObject(v)).finish()),
          requestDeserialize: (b: Buffer) => reqType.toObject(reqType.decode(b), { defaults: true }),
          responseSerialize: (v: object) => Buffer.from(resType.encode(resType.fromObject(v)).finish()),
          responseDeserialize: (b: Buffer) => resType.toObject(resType.decode(b)),
        },
        impl: (call: { request: Record<string, unknown> }, callback: (err: grpcModule.ServiceError | null, value?: object) => void) => {
          calls.push(`${name} ${JSON.stringify(call.request)}`);
          const out = handle(call.request);
          if (out instanceof Error) callback(out);
          else callback(null, out);
        },
      };
    };
    const methods = {
      Version: method('Version', 'VersionRequest', 'VersionResponse', () => ({ version: '0.1.0', runtime_name: 'containerd', runtime_version: 'v1.4.13', runtime_api_version: 'v1alpha2' })),
      ListPodSandbox: method('ListPodSandbox', 'ListPodSandboxRequest', 'ListPodSandboxResponse', () => ({
        items: [
          { id: 'p1', metadata: { name: 'etcd-cp1', uid: 'u1', namespace: 'kube-system', attempt: 0 }, state: 0, created_at: 1_700_000_000_000_000_000n.toString(), labels: { a: 'b' } },
          { id: 'p2', metadata: { name: 'old', uid: 'u2', namespace: 'default', attempt: 1 }, state: 1 },
        ],
      })),
      ListContainers: method('ListContainers', 'ListContainersRequest', 'ListContainersResponse', () => ({
        containers: [
          { id: 'c1', pod_sandbox_id: 'p1', metadata: { name: 'etcd', attempt: 0 }, image: { image: 'etcd:3.4' }, state: 1 },
          { id: 'c2', pod_sandbox_id: 'p2', metadata: { name: 'gone', attempt: 2 }, state: 2 },
        ],
      })),
      StopPodSandbox: method('StopPodSandbox', 'StopPodSandboxRequest', 'StopPodSandboxResponse', () => ({})),
      RemovePodSandbox: method('RemovePodSandbox', 'RemovePodSandboxRequest', 'RemovePodSandboxResponse', () => ({})),
    };
    const imageOf = (request: Record<string, unknown>): string => (request.image as { image: string }).image;
    // ImageService of a v1alpha2-only runtime: one image present, one a registry does not have.
    const imageMethods = {
      ImageStatus: method('ImageStatus', 'ImageStatusRequest', 'ImageStatusResponse', (r) =>
        (imageOf(r) === 'r/present:1' ? { image: { id: 'sha256:abc', repo_tags: ['r/present:1'], size: 10 } } : {}), 'ImageService'),
      PullImage: method('PullImage', 'PullImageRequest', 'PullImageResponse', (r) =>
        (imageOf(r) === 'r/missing:1'
          ? Object.assign(new Error('not found'), { code: grpc.status.NOT_FOUND, details: 'failed to resolve reference "r/missing:1": not found', metadata: new grpc.Metadata() })
          : { image_ref: 'sha256:def' }), 'ImageService'),
    };
    server = new grpc.Server();
    server.addService(
      Object.fromEntries(Object.entries(methods).map(([k, m]) => [k, m.definition])),
      Object.fromEntries(Object.entries(methods).map(([k, m]) => [k, m.impl])),
    );
    server.addService(
      Object.fromEntries(Object.entries(imageMethods).map(([k, m]) => [k, m.definition])),
      Object.fromEntries(Object.entries(imageMethods).map(([k, m]) => [k, m.impl])),
    );
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(`unix://${path.join(dir, 'cri.sock')}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
    );
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  test('version, pods and containers from a v1alpha2-only runtime, then stop and remove a pod', async () => {
    // Each call's deadline is generous: this test is about what the calls return, and on the CI
    // machine, loaded by the e2e project beside it, one call took 5.5 s (DeadlineExceeded at 5 s).
    const cri = await connectCri(`unix://${path.join(dir, 'cri.sock')}`, 30_000);
    try {
      expect(await cri.version()).toEqual({ runtimeName: 'containerd', runtimeVersion: 'v1.4.13', apiVersion: 'v1alpha2' });
      expect(await cri.listPodSandboxes()).toEqual([
        { id: 'p1', name: 'etcd-cp1', namespace: 'kube-system', ready: true },
        { id: 'p2', name: 'old', namespace: 'default', ready: false },
      ]);
      expect(await cri.listContainers()).toEqual([
        { id: 'c1', podSandboxId: 'p1', name: 'etcd', running: true, state: 'RUNNING' },
        { id: 'c2', podSandboxId: 'p2', name: 'gone', running: false, state: 'EXITED' },
      ]);
      await cri.stopAndRemovePodSandbox('p2');
    } finally {
      cri.close();
    }
    expect(calls).toEqual([
      'Version {"version":"0.1.0"}',
      'ListPodSandbox {"filter":null}',
      'ListContainers {"filter":null}',
      'StopPodSandbox {"pod_sandbox_id":"p2"}',
      'RemovePodSandbox {"pod_sandbox_id":"p2"}',
    ]);
  });

  test('ImageService: ImageStatus and PullImage on a v1alpha2-only runtime; a pull error keeps the runtime\'s code and message', async () => {
    const cri = await connectCri(`unix://${path.join(dir, 'cri.sock')}`, 30_000);
    const before = calls.length;
    try {
      expect(await cri.imageExists('r/present:1')).toBe(true);
      expect(await cri.imageExists('r/absent:1')).toBe(false);
      expect(await cri.pullImage('r/absent:1')).toBe('sha256:def');
      await expect(cri.pullImage('r/missing:1')).rejects.toThrow('rpc error: code = NotFound desc = failed to resolve reference "r/missing:1": not found');
    } finally {
      cri.close();
    }
    // Request shapes as the v1alpha2 schema decodes them (ImageSpec.image; no auth, no sandbox config).
    expect(calls.slice(before)).toEqual([
      'ImageStatus {"image":{"annotations":{},"image":"r/present:1"},"verbose":false}',
      'ImageStatus {"image":{"annotations":{},"image":"r/absent:1"},"verbose":false}',
      'PullImage {"image":{"annotations":{},"image":"r/absent:1"},"auth":null,"sandbox_config":null}',
      'PullImage {"image":{"annotations":{},"image":"r/missing:1"},"auth":null,"sandbox_config":null}',
    ]);
  });

  test('RuntimeConfig on a runtime that predates it (kubelet 1.20\'s v1alpha2 schema, as containerd 1.6): UNIMPLEMENTED, with no fall back to v1alpha2', async () => {
    const cri = await connectCri(`unix://${path.join(dir, 'cri.sock')}`, 30_000);
    const before = calls.length;
    try {
      const err = await cri.runtimeConfig().then(() => undefined, (e: unknown) => e as Error & { code?: number });
      expect(err?.code).toBe(grpc.status.UNIMPLEMENTED);
      expect(err?.message).toMatch(/^rpc error: code = Unimplemented desc = /);
      // The call did not switch the client to v1alpha2 for RuntimeConfig, nor break later calls.
      expect((await cri.version()).runtimeName).toBe('containerd');
    } finally {
      cri.close();
    }
    expect(calls.slice(before)).toEqual(['Version {"version":"0.1.0"}']);
  });
});
