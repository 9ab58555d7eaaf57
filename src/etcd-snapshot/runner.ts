import https from 'node:https';
import path from 'node:path';
import { TsadmError, errorMessage } from '../errors.js';
import { EtcdClient } from '../etcd-client/client.js';
import type { EtcdTls } from '../etcd-client/transport.js';
import { connectCri, type CriClient } from '../host/cri-client.js';
import { detectCriSocket, socketPath } from '../host/cri.js';
import type { Host } from '../host/host.js';
import type { Logger } from '../log/events.js';
import { etcdTlsFromDir } from '../etcd-client/urls.js';
import { toKubeYaml } from '../yaml/write.js';
import { restoreSnapshot, type RestoreDeps, type RestoreResult, type ToolRun } from './restore.js';
import { apiServerEndpoint, ASIDE_DIR, MANIFESTS_DIR, RESTORE_CONTAINER, RESTORE_POD_MANIFEST, restorePod, type EtcdPodFacts } from './restore-plan.js';

/**
 * The machine side of a restore: the restore tool runs as a one-off static Pod (the kubelet pulls
 * and runs the etcd image as it runs etcd itself; no second container-runtime client in tsadm),
 * watched through the CRI until it exits; the control plane's containers are watched through the
 * CRI; etcd and the API server are asked until they answer.
 */
export interface RunnerOptions {
  readonly host: Host;
  /** Connected on first use (after the snapshot passed its check). */
  readonly cri: () => Promise<CriClient>;
  readonly etcdTls: EtcdTls;
  /** The cluster CA (pki/ca.crt) the API server's certificate is checked against. */
  readonly apiCa: Buffer;
  readonly timeoutMs?: number;
  readonly pollMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface RestoreRequest {
  readonly file: string;
  /** The cluster CA and etcd/ client pair. */
  readonly certDir: string;
  /** The runtime's socket; detected when undefined. */
  readonly criSocket?: string;
  readonly timeoutMs: number;
  /** A plan's restore: the snapshot must still have this SHA-256. */
  readonly expectSha256?: string;
}

/**
 * `etcd snapshot restore` on this machine, for the command and for a plan's restore step alike:
 * the machine's parts (the CA, the etcd client pair, the CRI connection) are reached only after the
 * snapshot passed its check, so a damaged file is reported first whatever else is missing. A dry
 * run reaches none of them.
 */
export async function restoreOnMachine(host: Host, log: Logger, req: RestoreRequest): Promise<RestoreResult> {
  const closers: Array<() => void> = [];
  let machine: Promise<RestoreDeps> | undefined;
  const real = (): Promise<RestoreDeps> => {
    machine ??= (async () => {
      const apiCa = await host.readFile(path.posix.join(req.certDir, 'ca.crt'));
      if (!apiCa) throw new TsadmError('E_PRECONDITION', `missing ${req.certDir}/ca.crt`, { hint: 'run the restore on a control plane (or point --cert-dir at its pki directory)' });
      const etcdTls = await etcdTlsFromDir(host, req.certDir);
      let cri: Promise<CriClient> | undefined;
      const connect = (): Promise<CriClient> => {
        cri ??= (async () => {
          const socket = req.criSocket ?? await detectCriSocket(host, { dockershimEra: false, asUrl: false });
          const client = await connectCri(host.resolve(socketPath(socket)));
          closers.push(() => client.close());
          return client;
        })();
        return cri;
      };
      return machineRestoreDeps({ host, cri: connect, etcdTls, apiCa, timeoutMs: req.timeoutMs });
    })();
    return machine;
  };
  const deps: RestoreDeps = host.dryRun
    ? { runTool: notInDryRun, waitContainersGone: notInDryRun, waitControlPlane: notInDryRun }
    : {
      runTool: async (r) => (await real()).runTool(r),
      waitContainersGone: async (n) => (await real()).waitContainersGone(n),
      waitControlPlane: async (f) => (await real()).waitControlPlane(f),
    };
  try {
    return await restoreSnapshot(host, log, req.file, deps, req.expectSha256 !== undefined ? { expectSha256: req.expectSha256 } : {});
  } finally {
    closers.forEach((c) => c());
  }
}

function notInDryRun(): Promise<never> {
  return Promise.reject(new TsadmError('E_INTERNAL', 'a dry run reached a machine step'));
}

export function machineRestoreDeps(o: RunnerOptions): RestoreDeps {
  const timeoutMs = o.timeoutMs ?? 5 * 60_000;
  const pollMs = o.pollMs ?? 1000;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
    const end = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      try {
        const v = await probe();
        if (v !== undefined) return v;
      } catch (err) {
        last = `: ${errorMessage(err)}`;
      }
      if (Date.now() > end) throw new TsadmError('E_TIMEOUT', `timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}${last}`, { hint: 'see `crictl ps -a` and the kubelet log; run the restore again to continue' });
      await sleep(pollMs);
    }
  };

  return {
    async runTool(run: ToolRun) {
      const podName = `tsadm-etcd-restore-${Date.now().toString(36)}`;
      const manifest = path.posix.join(MANIFESTS_DIR, RESTORE_POD_MANIFEST);
      await o.host.writeFile(manifest, toKubeYaml(restorePod(podName, run.image, run.command, run.mounts)), { mode: 0o600, kind: 'manifest', description: 'etcd restore (one-off)' });
      try {
        const status = await until(`${run.command[0]} snapshot restore (static Pod ${podName})`, async () => {
          const sandboxes = new Set((await (await o.cri()).listPodSandboxes()).filter((s) => s.name.startsWith(podName)).map((s) => s.id));
          const c = (await (await o.cri()).listContainers()).find((x) => x.name === RESTORE_CONTAINER && sandboxes.has(x.podSandboxId) && x.state === 'EXITED');
          return c === undefined ? undefined : (await o.cri()).containerStatus(c.id);
        });
        if (status.exitCode !== 0) {
          throw new TsadmError('E_EXEC', `${run.command[0]} snapshot restore exited with ${status.exitCode}${status.message ? `: ${status.message.split('\n')[0]}` : ''}`, {
            hint: `the control plane is stopped (manifests in ${ASIDE_DIR}); see the container's log (crictl logs), then run the restore again`,
          });
        }
      } finally {
        await o.host.remove(manifest);
      }
    },
    async waitContainersGone(names) {
      const wanted = new Set(names);
      await until(`${names.join(', ')} to stop`, async () => {
        const left = (await (await o.cri()).listContainers()).filter((c) => wanted.has(c.name) && (c.state === 'RUNNING' || c.state === 'CREATED'));
        return left.length === 0 ? true : undefined;
      });
    },
    async waitControlPlane(facts: EtcdPodFacts) {
      const endpoint = facts.clientURL ?? 'https://127.0.0.1:2379';
      const etcd = new EtcdClient([endpoint], { tls: o.etcdTls, requestTimeoutMs: 5000 });
      await until(`etcd at ${endpoint}`, async () => ((await etcd.status(endpoint)).ok ? true : undefined));
      const text = (await o.host.readFile(path.posix.join(MANIFESTS_DIR, 'kube-apiserver.yaml')))?.toString('utf8');
      const api = text === undefined ? undefined : apiServerEndpoint(text);
      if (!api) return;
      await until(`the API server at ${api.host}:${api.port}`, () => readyz(api.host, api.port, o.apiCa));
    },
  };
}

function readyz(host: string, port: number, ca: Buffer): Promise<true | undefined> {
  return new Promise((resolve, reject) => {
    const req = https.get({ host, port, path: '/readyz', ca, agent: false, timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? true : undefined);
    });
    req.on('timeout', () => req.destroy(new Error('no answer')));
    req.on('error', reject);
  });
}
