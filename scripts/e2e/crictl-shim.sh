#!/usr/bin/env bash
# A stand-in for crictl inside an e2e machine, for the image checks of the reference kubeadm only.
# Debian has no crictl (cri-tools), and kubeadm 1.20 cannot do without it where it pulls images:
# `kubeadm upgrade apply` runs its prepull (preflight.RunPullImagesCheck) unconditionally, and
# utilruntime.NewContainerRuntime fails with "crictl is required for container runtime" when no
# crictl is on PATH — an error no --ignore-preflight-errors value turns into a warning.
# The harness installs this script as /usr/local/bin/crictl in one machine on request
# (installCrictlShim in test/e2e/harness.ts); it is never on a machine's PATH otherwise.
#
# What kubeadm 1.20 runs (util/runtime/runtime.go, CRIRuntime) and what this does:
#   crictl -r unix://SOCK inspecti IMAGE   exit 0 when IMAGE is in containerd's k8s.io namespace
#                                          (the one the CRI plugin serves), 1 when not
#   crictl -r unix://SOCK pull IMAGE       exit 0 when IMAGE is there already; else 1: no registry is
#                                          reachable from a machine, so a real pull would fail too
#   crictl -r unix://SOCK info             exit 0 when containerd answers
# Anything else exits 64 with a message (so a new use by kubeadm shows up instead of passing).
set -uo pipefail

endpoint=unix:///run/containerd/containerd.sock
while (($# > 0)); do
  case $1 in
    -r | --runtime-endpoint | -i | --image-endpoint) endpoint=$2; shift 2 ;;
    --runtime-endpoint=* | --image-endpoint=*) endpoint=${1#*=}; shift ;;
    --timeout | -t) shift 2 ;;
    --timeout=*) shift ;;
    *) break ;;
  esac
done
address=${endpoint#unix://}
cmd=${1:-}
shift || true

ctr_() { ctr --address "$address" -n k8s.io "$@"; }

# has_image REF: the exact reference is in the image store.
has_image() { ctr_ images ls -q "name==$1" 2>/dev/null | grep -qxF -- "$1"; }

case $cmd in
  inspecti)
    (($# == 1)) || { echo "crictl-shim: usage: inspecti IMAGE" >&2; exit 64; }
    if has_image "$1"; then
      printf '{"status":{"repoTags":["%s"]}}\n' "$1"
      exit 0
    fi
    echo "crictl-shim: no such image \"$1\" present" >&2
    exit 1
    ;;
  pull)
    (($# == 1)) || { echo "crictl-shim: usage: pull IMAGE" >&2; exit 64; }
    if has_image "$1"; then
      echo "Image is up to date for $1"
      exit 0
    fi
    echo "crictl-shim: cannot pull \"$1\": no registry is reachable from an e2e machine, and it was not imported" >&2
    exit 1
    ;;
  info)
    ctr --address "$address" version >/dev/null
    ;;
  *)
    echo "crictl-shim: \"$cmd $*\" is not supported (only inspecti, pull, info)" >&2
    exit 64
    ;;
esac
