import { socketPath } from './cri.js';

/**
 * A minimal CRI client over gRPC (@grpc/grpc-js + protobufjs), for machines without crictl:
 * the few RuntimeService calls reset, the troubleshooting hints and preflight's
 * ContainerRuntimeVersion (RuntimeConfig, runtime.v1 only) need, and the ImageService
 * calls of `config images pull` and preflight's image pull. The message
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
message ImageSpec { string image = 1; map<string, string> annotations = 2; }
message ImageStatusRequest { ImageSpec image = 1; bool verbose = 2; }
message Image { string id = 1; repeated string repo_tags = 2; repeated string repo_digests = 3; uint64 size = 4; }
message ImageStatusResponse { Image image = 1; map<string, string> info = 2; }
message AuthConfig { string username = 1; string password = 2; string auth = 3; string server_address = 4; string identity_token = 5; string registry_token = 6; }
message PullImageRequest { ImageSpec image = 1; AuthConfig auth = 2; }
message PullImageResponse { string image_ref = 1; }
message ContainerStatusRequest { string container_id = 1; bool verbose = 2; }
message ContainerStatus { string id = 1; ContainerMetadata metadata = 2; int32 state = 3; int64 created_at = 4; int64 started_at = 5; int64 finished_at = 6; int32 exit_code = 7; string reason = 10; string message = 11; }
message ContainerStatusResponse { ContainerStatus status = 1; }
message RuntimeConfigRequest {}
message LinuxRuntimeConfiguration { int32 cgroup_driver = 1; }
message RuntimeConfigResponse { LinuxRuntimeConfiguration linux = 1; }
`;

/** kubeadm's pulls have no deadline of their own; a pull that hangs this long is reported. */
const PULL_TIMEOUT_MS = 10 * 60_000;

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

type Service = 'RuntimeService' | 'ImageService';

const CONTAINER_STATES = ['CREATED', 'RUNNING', 'EXITED', 'UNKNOWN'];

export interface CriClient {
  version(): Promise<{ runtimeName: string; runtimeVersion: string; apiVersion: string }>;
  listPodSandboxes(): Promise<PodSandboxInfo[]>;
  listContainers(): Promise<ContainerInfo[]>;
  stopAndRemovePodSandbox(id: string): Promise<void>;
  /** RuntimeService.ContainerStatus: the state and, once exited, the exit code (a one-off job's result). */
  containerStatus(id: string): Promise<{ state: string; exitCode: number; reason: string; message: string }>;
  /** ImageService.ImageStatus: whether the runtime has the image (kubeadm's ImageExists). */
  imageExists(image: string): Promise<boolean>;
  /** ImageService.PullImage; resolves to the image reference the runtime reports. */
  pullImage(image: string): Promise<string>;
  /**
   * RuntimeService.RuntimeConfig (runtime.v1 only: no v1alpha2 fallback): the runtime's cgroup
   * driver (CRI's CgroupDriver enum: SYSTEMD = 0, CGROUPFS = 1). A runtime that predates the call
   * answers UNIMPLEMENTED (code 12 on the rejected error).
   */
  runtimeConfig(): Promise<{ cgroupDriver: 'systemd' | 'cgroupfs' }>;
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
  // The API version each service answered (runtime.v1 first, then v1alpha2), kept per service.
  const version: Record<Service, 'v1' | 'v1alpha2'> = { RuntimeService: 'v1', ImageService: 'v1' };

  const call = <T>(method: string, request: string, response: string, body: object, svc: Service = 'RuntimeService', deadlineMs = timeoutMs, v1Only = false): Promise<T> => {
    const reqType = type(request);
    const resType = type(response);
    const attempt = (api: 'v1' | 'v1alpha2'): Promise<T> =>
      new Promise((resolve, reject) => {
        client.makeUnaryRequest(
          `/runtime.${api}.${svc}/${method}`,
          (v: object) => Buffer.from(reqType.encode(reqType.fromObject(v)).finish()),
          (b: Buffer) => resType.toObject(resType.decode(b), { longs: Number, defaults: true }) as T,
          body,
          new grpc.Metadata(),
          { deadline: Date.now() + deadlineMs },
          (err, value) => (err ? reject(criError(err)) : resolve(value as T)),
        );
      });
    if (v1Only) return attempt('v1');
    return attempt(version[svc]).catch((err: { code?: number }) => {
      // UNIMPLEMENTED: the runtime only serves the older API version.
      if (err.code === grpc.status.UNIMPLEMENTED && version[svc] === 'v1') {
        version[svc] = 'v1alpha2';
        return attempt('v1alpha2');
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
    async containerStatus(id: string) {
      const res = await call<{ status: { state: number; exit_code: number; reason: string; message: string } | null }>('ContainerStatus', 'ContainerStatusRequest', 'ContainerStatusResponse', { container_id: id });
      const st = res.status;
      return { state: CONTAINER_STATES[st?.state ?? 3] ?? 'UNKNOWN', exitCode: st?.exit_code ?? -1, reason: st?.reason ?? '', message: st?.message ?? '' };
    },
    async imageExists(image: string) {
      const res = await call<{ image: { id: string } | null }>('ImageStatus', 'ImageStatusRequest', 'ImageStatusResponse', { image: { image } }, 'ImageService');
      return res.image !== null && res.image.id !== '';
    },
    async pullImage(image: string) {
      const res = await call<{ image_ref: string }>('PullImage', 'PullImageRequest', 'PullImageResponse', { image: { image } }, 'ImageService', PULL_TIMEOUT_MS);
      return res.image_ref;
    },
    async runtimeConfig() {
      const res = await call<{ linux: { cgroup_driver: number } | null }>('RuntimeConfig', 'RuntimeConfigRequest', 'RuntimeConfigResponse', {}, 'RuntimeService', timeoutMs, true);
      return { cgroupDriver: res.linux?.cgroup_driver === 1 ? 'cgroupfs' : 'systemd' };
    },
    close() {
      client.close();
    },
  };
}

/**
 * A gRPC error as kubeadm's CRI client words it ("rpc error: code = NotFound desc = …"), keeping
 * the status code for the version fallback.
 */
function criError(err: { code?: number; details?: string; message: string }): Error & { code?: number } {
  const codes = ['OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied', 'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated'];
  const out: Error & { code?: number } = new Error(`rpc error: code = ${codes[err.code ?? 2] ?? 'Unknown'} desc = ${(err.details ?? err.message).trim()}`);
  if (err.code !== undefined) out.code = err.code;
  return out;
}

/** The CommonJS module object behind a dynamic import, bundled or not. */
function cjs<T extends object>(mod: T): T {
  const fallback = (mod as { default?: T }).default;
  return fallback !== undefined && typeof fallback === 'object' ? fallback : mod;
}
