#!/usr/bin/env bash
# Runs inside a control-plane harness machine (bench/limits.mjs). Usage: cp-probe.sh START_KUBELET
#   START_KUBELET=1: start the kubelet (through the machine's service manager) at t0.
# Makes a key and a CSR object for the signer kubernetes.io/kube-apiserver-client (untimed), then
# polls every 100 ms (for at most 240 s) until etcd, kube-apiserver, kube-controller-manager and
# kube-scheduler answer their health endpoints and the CSR, created and approved as soon as the
# API server answers, is signed. Prints "t0 <epoch>" and one "<probe> <epoch>" line per probe.
set -u
start_kubelet=${1:-0}
kubectl_() { kubectl --kubeconfig /etc/kubernetes/admin.conf "$@"; }
now() { date +%s.%N; }
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
openssl req -new -newkey rsa:2048 -nodes -keyout "$w/key" -subj /CN=bench-limit -out "$w/req" 2>/dev/null
cat >"$w/csr.yaml" <<YAML
apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: bench-limit}
spec:
  request: $(base64 -w0 "$w/req")
  signerName: kubernetes.io/kube-apiserver-client
  usages: [client auth]
YAML
healthy() { [[ $(curl -sk --max-time 1 -o /dev/null -w '%{http_code}' "$1") == 200 ]]; }
declare -A at
echo "t0 $(now)"
if [[ $start_kubelet == 1 ]]; then ("$TSADM_SERVICE_MANAGER" start kubelet >/dev/null 2>&1 &); fi
created=0
deadline=$((SECONDS + 240))
while ((SECONDS < deadline)); do
  [[ -n ${at[etcd]:-} ]] || { healthy http://127.0.0.1:2381/health && at[etcd]=$(now); }
  [[ -n ${at[apiserver]:-} ]] || { healthy https://127.0.0.1:6443/healthz && at[apiserver]=$(now); }
  [[ -n ${at[controllerManager]:-} ]] || { healthy https://127.0.0.1:10257/healthz && at[controllerManager]=$(now); }
  [[ -n ${at[scheduler]:-} ]] || { healthy https://127.0.0.1:10259/healthz && at[scheduler]=$(now); }
  if [[ -n ${at[apiserver]:-} && $created == 0 ]] && kubectl_ create -f "$w/csr.yaml" >/dev/null 2>&1; then created=1; fi
  if [[ $created == 1 && -z ${at[csrApproved]:-} ]] && kubectl_ certificate approve bench-limit >/dev/null 2>&1; then at[csrApproved]=$(now); fi
  if [[ -n ${at[csrApproved]:-} && -z ${at[csrSigned]:-} && -n $(kubectl_ get csr bench-limit -o 'jsonpath={.status.certificate}' 2>/dev/null) ]]; then
    at[csrSigned]=$(now)
  fi
  [[ -n ${at[etcd]:-} && -n ${at[apiserver]:-} && -n ${at[controllerManager]:-} && -n ${at[scheduler]:-} && -n ${at[csrSigned]:-} ]] && break
  sleep 0.1
done
for k in "${!at[@]}"; do echo "$k ${at[$k]}"; done
