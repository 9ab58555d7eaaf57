/** What `join` prints when it is done (kubeadm's joinWorkerNodeDoneMsg / joinControPlaneDoneTemp). Pure. */
export function joinDoneText(controlPlane: boolean, etcdAdded: boolean): string {
  if (!controlPlane) {
    return [
      '',
      'This node has joined the cluster:',
      '* Certificate signing request was sent to apiserver and a response was received.',
      '* The Kubelet was informed of the new secure connection details.',
      '',
      "Run 'kubectl get nodes' on the control-plane to see this node join the cluster.",
      '',
    ].join('\n');
  }
  return [
    '',
    'This node has joined the cluster and a new control plane instance was created:',
    '',
    '* Certificate signing request was sent to apiserver and approval was received.',
    '* The Kubelet was informed of the new secure connection details.',
    '* Control plane (master) label and taint were applied to the new node.',
    '* The Kubernetes control plane instances scaled up.',
    ...(etcdAdded ? ['* A new etcd member was added to the local/stacked etcd cluster.'] : []),
    '',
    'To start administering your cluster from this node, you need to run the following as a regular user:',
    '',
    '\tmkdir -p $HOME/.kube',
    '\tsudo cp -i /etc/kubernetes/admin.conf $HOME/.kube/config',
    '\tsudo chown $(id -u):$(id -g) $HOME/.kube/config',
    '',
    "Run 'kubectl get nodes' to see this node join the cluster.",
    '',
  ].join('\n');
}
