import path from 'node:path';
import { TsadmError } from '../../errors.js';
import { joinTargetFromKubeconfig, renderJoinCommand, type JoinTarget } from '../../token/join-command.js';
import type { Phase } from '../../engine/phase.js';
import type { InitCtx } from '../../run/context.js';

/** kubeadm's initDoneTempl (cmd/init.go), "kubeadm" replaced by "tsadm". */
export interface InitDoneInput {
  readonly kubeconfigPath: string;
  readonly controlPlaneEndpoint: string;
  readonly uploadCerts: boolean;
  readonly joinControlPlaneCommand: string;
  readonly joinWorkerCommand: string;
}

export function renderInitDone(i: InitDoneInput): string {
  let out = '\nYour Kubernetes control-plane has initialized successfully!\n\n'
    + 'To start using your cluster, you need to run the following as a regular user:\n\n'
    + '  mkdir -p $HOME/.kube\n'
    + `  sudo cp -i ${i.kubeconfigPath} $HOME/.kube/config\n`
    + '  sudo chown $(id -u):$(id -g) $HOME/.kube/config\n\n'
    + 'Alternatively, if you are the root user, you can run:\n\n'
    + '  export KUBECONFIG=/etc/kubernetes/admin.conf\n\n'
    + 'You should now deploy a pod network to the cluster.\n'
    + 'Run "kubectl apply -f [podnetwork].yaml" with one of the options listed at:\n'
    + '  https://kubernetes.io/docs/concepts/cluster-administration/addons/\n\n';
  if (i.controlPlaneEndpoint) {
    out += i.uploadCerts
      ? 'You can now join any number of the control-plane node running the following command on each as root:\n\n'
        + `  ${i.joinControlPlaneCommand}\n\n`
        + 'Please note that the certificate-key gives access to cluster sensitive data, keep it secret!\n'
        + 'As a safeguard, uploaded-certs will be deleted in two hours; If necessary, you can use\n'
        + '"tsadm init phase upload-certs --upload-certs" to reload certs afterward.\n\n'
      : 'You can now join any number of control-plane nodes by copying certificate authorities\n'
        + 'and service account keys on each node and then running the following as root:\n\n'
        + `  ${i.joinControlPlaneCommand}\n\n`;
  }
  out += 'Then you can join any number of worker nodes by running the following on each as root:\n\n'
    + `${i.joinWorkerCommand}\n`;
  return out;
}

export interface ClosingTextInput {
  readonly target: JoinTarget;
  readonly tokens: readonly string[];
  readonly kubeconfigPath: string;
  readonly controlPlaneEndpoint: string;
  readonly uploadCerts: boolean;
  readonly certificateKey: string | undefined;
  readonly skipTokenPrint: boolean;
  readonly skipCertificateKeyPrint: boolean;
}

/** One closing text per token, as kubeadm prints it; also returns the first token's commands. */
export function renderClosingText(i: ClosingTextInput): { text: string; worker: string; controlPlane: string } {
  let text = '';
  let first: { worker: string; controlPlane: string } | undefined;
  for (const token of i.tokens) {
    const base = { endpoint: i.target.endpoint, token, caCertHashes: i.target.caCertHashes, skipTokenPrint: i.skipTokenPrint };
    const controlPlane = renderJoinCommand({
      ...base,
      controlPlane: true,
      ...(i.certificateKey ? { certificateKey: i.certificateKey } : {}),
      skipCertificateKeyPrint: i.skipCertificateKeyPrint,
    });
    const worker = renderJoinCommand({ ...base, controlPlane: false });
    first ??= { worker, controlPlane };
    text += renderInitDone({
      kubeconfigPath: i.kubeconfigPath,
      controlPlaneEndpoint: i.controlPlaneEndpoint,
      uploadCerts: i.uploadCerts,
      joinControlPlaneCommand: controlPlane,
      joinWorkerCommand: worker,
    });
  }
  return { text, worker: first?.worker ?? '', controlPlane: first?.controlPlane ?? '' };
}

export const showJoinCommandPhase: Phase<InitCtx> = {
  name: 'show-join-command',
  summary: 'Show the join command for control-plane and worker node',
  description: 'Print what init prints at its end: how to use the admin kubeconfig, and the `tsadm join` commands for control-plane '
    + 'and worker nodes with each bootstrap token and the CA certificate hash (tokens withheld with --skip-token-print).',
  example: '  # Prints the join commands for the tokens of the configuration.\n  tsadm init phase show-join-command --config config.yaml',
  flags: ['config', 'kubeconfig', 'skip-token-print', 'skip-certificate-key-print', 'upload-certs', 'certificate-key'],
  noExitCheck: 'always-runs',
  async run(ctx) {
    const kubeconfigPath = ctx.options.kubeconfigPath;
    const text = await ctx.host.readFile(kubeconfigPath);
    if (!text) throw new TsadmError('E_PRECONDITION', `failed to load kubeconfig ${kubeconfigPath}: no such file`, { hint: 'run `tsadm init phase kubeconfig admin` first' });
    const target = joinTargetFromKubeconfig(text.toString('utf8'), undefined);
    const certificateKey = ctx.state.certificateKey || ctx.cfg.init.certificateKey || undefined;
    const { text: closing, worker, controlPlane } = renderClosingText({
      target,
      tokens: ctx.cfg.init.bootstrapTokens.map((t) => t.token),
      kubeconfigPath: path.posix.normalize(kubeconfigPath),
      controlPlaneEndpoint: ctx.cfg.cluster.controlPlaneEndpoint,
      uploadCerts: ctx.options.uploadCerts,
      certificateKey,
      skipTokenPrint: ctx.options.skipTokenPrint,
      skipCertificateKeyPrint: ctx.options.skipCertificateKeyPrint,
    });
    ctx.state.joinCommand = worker;
    ctx.state.controlPlaneJoinCommand = controlPlane;
    // The closing text is the output of `init` the user asked for (tokens withheld with --skip-token-print).
    ctx.log.output(closing);
  },
};
