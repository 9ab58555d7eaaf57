#!/usr/bin/env bash
# Smoke check of machine.sh stop/start and an haproxy load-balancer machine (issue 18 groundwork,
# run by hand: scripts/e2e/ha-smoke.sh; needs npm run build and npm run provision).
set -u
cd "$(dirname "$0")/../.."
M=scripts/e2e/machine.sh
S=/var/cache/tsadm/e2e-scratch/ha-manual; rm -rf $S; mkdir -p $S; cp -r bin dist $S/
for m in h1 hl; do $M down $m >/dev/null 2>&1; done
$M up h1 10.250.0.221 && $M up hl 10.250.0.220 || exit 1
bash scripts/e2e/kubeadm-config.sh 10.250.0.221 h1 10.250.0.220:6443 > $S/c.yaml   # controlPlaneEndpoint = the LB
cat > $S/lb.cfg <<CFG
global
  maxconn 200
defaults
  mode tcp
  timeout connect 2s
  timeout client 1m
  timeout server 1m
frontend apiserver
  bind 10.250.0.220:6443
  default_backend controlplanes
backend controlplanes
  option httpchk GET /healthz
  http-check expect status 200
  default-server check check-ssl verify none inter 1s fall 2 rise 1
  server h1 10.250.0.221:6443
CFG
$M daemon hl haproxy -- haproxy -db -f $S/lb.cfg || exit 1
$M exec h1 -- node $S/bin/tsadm init --config $S/c.yaml --skip-phases=preflight > $S/init.log 2>&1 || { tail -20 $S/init.log; exit 1; }
echo "init ok $(date +%T)"
curl -sk --max-time 2 https://10.250.0.220:6443/healthz; echo " <- via LB"
$M exec h1 -- kubectl --kubeconfig /etc/kubernetes/admin.conf create configmap probe --from-literal=a=b
$M stop h1; echo "stopped $(date +%T)"; pgrep -fa "tsadm-holder-h1|/h1/" | head -3
curl -sk --max-time 2 https://10.250.0.220:6443/healthz; echo " <- via LB while h1 is down (expect nothing)"
$M start h1; echo "started $(date +%T)"
for i in $(seq 1 120); do r=$(curl -sk --max-time 1 https://10.250.0.220:6443/healthz); [[ $r == ok ]] && break; sleep 1; done
echo "healthy via LB after start: $r at $(date +%T)"
$M exec h1 -- kubectl --kubeconfig /etc/kubernetes/admin.conf get configmap probe -o jsonpath='{.data.a}'; echo " <- configmap survived"
$M exec h1 -- kubectl --kubeconfig /etc/kubernetes/admin.conf get nodes
$M list
for m in h1 hl; do $M down $m >/dev/null 2>&1; done
echo done
