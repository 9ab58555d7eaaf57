import { socketPath } from './cri.js';

/**
 * A minimal CRI client over gRPC (@grpc/grpc-js + protobufjs), for machines without crictl:
 * the few RuntimeService calls reset and the troubleshooting hints need. The message
 * definitions below are the subset of k8s.io/cri-api's api.proto tsadm uses, with the same field
 * numbers; runtime.v1 is tried first, then runtime.v1alpha2 (containerd 1.6 serves both; the
 * v1.20 kubelet speaks v1alpha2).
 */
const PROTO = `
syntax = "proto3";
package cri;
message VersionRequest { string version = 1; }
message VersionResponse { string version = 1; string runtime_name = 2; string runtime_version = 3; string runtime_api_version = 4; }
message PodSandboxFilter { string id = 1; map<string, string> label_selector = 3; }
message ListPodSandboxRequest { PodSandboxFilter filter = 1; }
message PodSandboxMetadata { string name = 1; string uid = 2; string namespace = 3; uint32 attempt = 4; }
message PodSandbox { string id = 1; PodSandboxMetadata metadata = 2; int32 state = 3; int64 created_at = 4; map<string, string> labels = 5; }
message ListPodSandboxResponse { repeated PodSandbox items = 1; }
message StopPodSandboxRequest { string pod_sandbox_id = 1; }
message StopPodSandboxResponse {}
message RemovePodSandboxRequest { string pod_sandbox_id = 1; }
message RemovePodSandboxResponse {}
message ContainerFilter { string id = 1; string pod_sandbox_id = 3; }
message ListContainersRequest { ContainerFilter filter = 1; }
message ContainerMetadata { string name = 1; uint32 attempt = 2; }
message Container { string id = 1; string pod_sandbox_id = 2; ContainerMetadata metadata = 3; int32 state = 6; map<string, string> labels = 8; }
message ListContainersResponse { repeated Container containers = 1; }
`;

interface PodSandboxInfo {
  readonly id: string;
  readonly name: string;
  readonly namespace: string;
  readonly ready: boolean;
}

interface ContainerInfo {
  readonly id: string;
  readonly podSandboxId: string;
  readonly name: string;
  readonly running: boolean;
  readonly state: string;
}

const CONTAINER_STATES = ['CREATED', 'RUNNING', 'EXITED', 'UNKNOWN'];

export interface CriClient {
  version(): Promise<{ runtimeName: string; runtimeVersion: string; apiVersion: string }>;
  listPodSandboxes(): Promise<PodSandboxInfo[]>;
  listContainers(): Promise<ContainerInfo[]>;
  stopAndRemovePodSandbox(id: string): Promise<void>;
  close(): void;
}

/** Connects to a CRI endpoint ("/run/containerd/containerd.sock" or "unix:///…"). */
export async function connectCri(endpoint: string, timeoutMs = 10_000): Promise<CriClient> {
  const [grpcModule, protobufModule] = await Promise.all([import('@grpc/grpc-js'), import('protobufjs')]);
  // Both are CommonJS: bundled (esbuild, code splitting) they expose only a default export.
  const grpc = cjs(grpcModule);
  const protobuf = cjs(protobufModule);
  const root = protobuf.parse(PROTO, { keepCase: true }).root;
  const type = (name: string) => root.lookupType(`cri.${name}`);
  const client = new grpc.Client(`unix://${socketPath(endpoint)}`, grpc.credentials.createInsecure());
  let service = 'runtime.v1.RuntimeService';

  const call = <T>(method: string, request: string, response: string, body: object): Promise<T> => {
    const reqType = type(request);
    const resType = type(response);
    const attempt = (svc: string): Promise<T> =>
      new Promise((resolve, reject) => {
        client.makeUnaryRequest(
          `/${svc}/${method}`,
          (v: object) => Buffer.from(reqType.encode(reqType.fromObject(v)).finish()),
          (b: Buffer) => resType.toObject(resType.decode(b), { longs: Number, defaults: true }) as T,
          body,
          new grpc.Metadata(),
          { deadline: Date.now() + timeoutMs },
          (err, value) => (err ? reject(err) : resolve(value as T)),
        );
      });
    return attempt(service).catch((err: { code?: number }) => {
      // UNIMPLEMENTED: the runtime only serves the older API version.
      if (err.code === grpc.status.UNIMPLEMENTED && service === 'runtime.v1.RuntimeService') {
        service = 'runtime.v1alpha2.RuntimeService';
        return attempt(service);
      }
      throw err;
    });
  };

  return {
    async version() {
      const v = await call<{ runtime_name: string; runtime_version: string; runtime_api_version: string }>('Version', 'VersionRequest', 'VersionResponse', { version: '0.1.0' });
      return { runtimeName: v.runtime_name, runtimeVersion: v.runtime_version, apiVersion: v.runtime_api_version };
    },
    async listPodSandboxes() {
      const res = await call<{ items: Array<{ id: string; state: number; metadata?: { name: string; namespace: string } }> }>('ListPodSandbox', 'ListPodSandboxRequest', 'ListPodSandboxResponse', {});
      return res.items.map((p) => ({ id: p.id, name: p.metadata?.name ?? '', namespace: p.metadata?.namespace ?? '', ready: p.state === 0 }));
    },
    async listContainers() {
      const res = await call<{ containers: Array<{ id: string; pod_sandbox_id: string; state: number; metadata?: { name: string } }> }>('ListContainers', 'ListContainersRequest', 'ListContainersResponse', {});
      return res.containers.map((c) => ({
        id: c.id,
        podSandboxId: c.pod_sandbox_id,
        name: c.metadata?.name ?? '',
        running: c.state === 1,
        state: CONTAINER_STATES[c.state] ?? 'UNKNOWN',
      }));
    },
    async stopAndRemovePodSandbox(id: string) {
      await call('StopPodSandbox', 'StopPodSandboxRequest', 'StopPodSandboxResponse', { pod_sandbox_id: id });
      await call('RemovePodSandbox', 'RemovePodSandboxRequest', 'RemovePodSandboxResponse', { pod_sandbox_id: id });
    },
    close() {
      client.close();
    },
  };
}

/** The CommonJS module object behind a dynamic import, bundled or not. */
function cjs<T extends object>(mod: T): T {
  const fallback = (mod as { default?: T }).default;
  return fallback !== undefined && typeof fallback === 'object' ? fallback : mod;
}
