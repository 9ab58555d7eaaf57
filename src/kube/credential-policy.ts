/**
 * What tsadm accepts from a kubeconfig's current context before any client sees it (decision
 * 48 in docs/decisions.md). The kubeconfig is parsed by tsadm's one YAML reader (src/yaml/read.ts), checked,
 * and handed to @kubernetes/client-node as plain options with every credential inline, so
 * client-node never reads a file and never runs a credential plugin tsadm did not allow:
 *
 * - `auth-provider` (gcp, azure, oidc, or any other) is refused. client-node's gcp and azure
 *   providers run `<cmd-path> <cmd-args>` through a shell (execSync), and client-go — so kubectl
 *   and kubeadm since 1.26 — removed those providers and returns an error instead.
 * - `exec` credential plugins run as kubectl runs them (no shell), but only on the machine's own
 *   root: a kubeconfig inside --rootfs belongs to another machine's tree, and its plugin would
 *   run here, as root. Under --rootfs, and for credentials that name no file (discovery's), an
 *   exec user is refused.
 * - Files the kubeconfig names (`certificate-authority`, `client-certificate`, `client-key`,
 *   `tokenFile` / `token-file`) are read through the host seam: under --rootfs they resolve
 *   inside that root (relative ones against the kubeconfig's own directory, as kubectl does) and
 *   the seam's guards apply (no symlink out of the root, regular files of bounded size). A
 *   kubeconfig that came from no file (`files` undefined) may name no file at all.
 *
 * Refusals are E_TRUST errors: a dry run, which otherwise plans for an empty cluster when a
 * kubeconfig cannot be used, stops on them (src/kube/open.ts).
 */
import path from 'node:path';
import * as yaml from 'js-yaml';
import { TsadmError, errorMessage } from '../errors.js';
import { loadYaml } from '../yaml/read.js';
import { isPlainObject } from '../util/plain-object.js';

/** How the files a kubeconfig names are read, and whether its exec plugin may run. */
export interface KubeconfigFiles {
  /** Reads a host path (under --rootfs, through the host seam); undefined when absent. */
  readonly read: (hostPath: string) => Promise<Buffer | undefined>;
  /** The host directory of the kubeconfig: relative references resolve against it. */
  readonly dir: string;
  /** True on the machine's own root (no --rootfs): an exec plugin may run, as kubectl runs it. */
  readonly allowExec: boolean;
}

/** client-node's loadFromOptions input (its Cluster, User and Context), every credential inline. */
export interface InlineKubeconfig {
  readonly clusters: Array<{ name: string; server: string; caData?: string; skipTLSVerify: boolean; tlsServerName?: string }>;
  readonly users: Array<{
    name: string; certData?: string; keyData?: string; token?: string; username?: string; password?: string; exec?: unknown; impersonateUser?: string;
  }>;
  readonly contexts: Array<{ name: string; cluster: string; user: string }>;
  readonly currentContext: string;
}

type Raw = Record<string, unknown>;

const str = (o: Raw, k: string): string | undefined => (typeof o[k] === 'string' && o[k] !== '' ? o[k] : undefined);

/** The current context's cluster and user of TEXT (from SOURCE), checked, with every credential inline. */
export async function inlineKubeconfig(text: string, source: string, files: KubeconfigFiles | undefined): Promise<InlineKubeconfig> {
  let doc: unknown;
  try {
    doc = loadYaml(text, { schema: yaml.CORE_SCHEMA });
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `failed to load kubeconfig ${source}: ${errorMessage(err).split('\n')[0] ?? ''}`, { hint: 'the file is not a valid kubeconfig' });
  }
  if (!isPlainObject(doc)) throw new TsadmError('E_PRECONDITION', `failed to load kubeconfig ${source}: not a YAML mapping`, { hint: 'the file is not a valid kubeconfig' });
  const named = (list: unknown, name: unknown, key: string): Raw | undefined => {
    if (!Array.isArray(list)) return undefined;
    const entry: unknown = list.find((e) => isPlainObject(e) && e.name === name);
    return isPlainObject(entry) && isPlainObject(entry[key]) ? entry[key] : undefined;
  };
  const currentContext = typeof doc['current-context'] === 'string' ? doc['current-context'] : '';
  const context = named(doc.contexts, currentContext, 'context');
  const clusterName = context && typeof context.cluster === 'string' ? context.cluster : undefined;
  const cluster = clusterName !== undefined ? named(doc.clusters, clusterName, 'cluster') : undefined;
  const server = cluster ? str(cluster, 'server') : undefined;
  if (!context || clusterName === undefined || !cluster || server === undefined) {
    throw new TsadmError('E_PRECONDITION', `kubeconfig ${source} has no cluster for its current context`, { hint: 'check current-context in the kubeconfig' });
  }
  const userName = typeof context.user === 'string' ? context.user : '';
  const user = named(doc.users, userName, 'user') ?? {};

  const refuse = (field: string, why: string, hint: string): TsadmError =>
    new TsadmError('E_TRUST', `kubeconfig ${source}: user "${userName}" ${field}: ${why}`, { hint });
  const authProvider = user['auth-provider'];
  if (authProvider !== undefined && authProvider !== null) {
    const name = isPlainObject(authProvider) && typeof authProvider.name === 'string' ? authProvider.name : '?';
    throw refuse(`uses auth-provider "${name}"`, 'auth-provider plugins are not supported (client-go removed them; kubectl and kubeadm ≥ 1.26 refuse them too), and tsadm never runs them',
      'give the user a client certificate, a token, or an exec credential plugin (client.authentication.k8s.io) instead');
  }
  const exec = user.exec;
  if (exec !== undefined && exec !== null && !files?.allowExec) {
    throw refuse('has an exec credential plugin', files ? 'tsadm does not run a program named by a kubeconfig under --rootfs (it would run on this machine, as root)' : 'credentials that come from no file must be inline',
      'embed the credentials (client-certificate-data and client-key-data, or token) in the kubeconfig');
  }

  const read = async (field: string, owner: 'cluster' | 'user', ref: string): Promise<Buffer> => {
    if (!files) {
      throw new TsadmError('E_TRUST', `kubeconfig ${source}: ${owner} ${field} names a file (${ref}); these credentials came from no file, so they must be inline`, {
        hint: `embed it as ${field}-data`,
      });
    }
    const hostPath = path.posix.resolve(files.dir, ref);
    const bytes = await files.read(hostPath);
    if (bytes === undefined) {
      throw new TsadmError('E_PRECONDITION', `failed to load kubeconfig ${source}: cannot resolve its credentials: its ${field} ${hostPath} does not exist`, {
        hint: 'check the certificate, key and token files the kubeconfig refers to',
      });
    }
    return bytes;
  };
  const data = async (o: Raw, field: string, owner: 'cluster' | 'user'): Promise<string | undefined> => {
    const inline = str(o, `${field}-data`);
    if (inline !== undefined) return inline;
    const ref = str(o, field);
    return ref !== undefined ? (await read(field, owner, ref)).toString('base64') : undefined;
  };

  const caData = await data(cluster, 'certificate-authority', 'cluster');
  const certData = await data(user, 'client-certificate', 'user');
  const keyData = await data(user, 'client-key', 'user');
  // client-go's field is tokenFile; client-node also reads token-file.
  const tokenRef = str(user, 'tokenFile') ?? str(user, 'token-file');
  const token = str(user, 'token') ?? (tokenRef !== undefined ? (await read('tokenFile', 'user', tokenRef)).toString('utf8').trim() : undefined);
  const tlsServerName = str(cluster, 'tls-server-name');
  const username = str(user, 'username');
  const password = str(user, 'password');
  const impersonateUser = str(user, 'as');
  return {
    clusters: [{ name: clusterName, server, skipTLSVerify: cluster['insecure-skip-tls-verify'] === true, ...(caData !== undefined ? { caData } : {}), ...(tlsServerName !== undefined ? { tlsServerName } : {}) }],
    users: [{
      name: userName,
      ...(certData !== undefined ? { certData } : {}),
      ...(keyData !== undefined ? { keyData } : {}),
      ...(token !== undefined ? { token } : {}),
      ...(username !== undefined ? { username } : {}),
      ...(password !== undefined ? { password } : {}),
      ...(impersonateUser !== undefined ? { impersonateUser } : {}),
      ...(exec !== undefined && exec !== null ? { exec } : {}),
    }],
    contexts: [{ name: currentContext, cluster: clusterName, user: userName }],
    currentContext,
  };
}
