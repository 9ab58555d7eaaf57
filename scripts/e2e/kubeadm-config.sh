#!/usr/bin/env bash
# Prints the kubeadm (v1beta2) configuration the e2e clusters use:
#   kubeadm-config.sh CONTROL_PLANE_IP [NODE_NAME] [CONTROL_PLANE_ENDPOINT]
# (the endpoint defaults to CONTROL_PLANE_IP:6443; an HA cluster passes its load balancer's)
# Settings this environment needs (scripts/e2e/README.md): cgroupfs, no swap check, kube-proxy not
# touching the read-only nf_conntrack_max, containerd's socket, the locally built images, a
# preflight image pull that may not find CoreDNS's image.
set -euo pipefail
CP_IP=${1:?usage: kubeadm-config.sh CONTROL_PLANE_IP [NODE_NAME]}
NODE_NAME=${2:-cp1}
ENDPOINT=${3:-$CP_IP:6443}
cat <<EOF
apiVersion: kubeadm.k8s.io/v1beta2
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: $CP_IP
  bindPort: 6443
nodeRegistration:
  name: $NODE_NAME
  criSocket: /run/containerd/containerd.sock
  # No registry is reachable from a machine and the CoreDNS image is a stand-in imported only where
  # a test needs it: preflight's image pull may fail for it, as a warning (kubeadm's workaround).
  ignorePreflightErrors:
  - ImagePull
---
apiVersion: kubeadm.k8s.io/v1beta2
kind: ClusterConfiguration
kubernetesVersion: v1.20.2
imageRepository: registry.local/k8s
controlPlaneEndpoint: $ENDPOINT
networking:
  podSubnet: 10.244.0.0/16
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
failSwapOn: false
---
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
conntrack:
  maxPerCore: 0
EOF
