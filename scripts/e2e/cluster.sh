#!/usr/bin/env bash
# A real two-node Kubernetes v1.20.2 cluster on this host (npm run cluster / cluster:down):
#   cluster.sh up      provision what it needs (provision.sh cluster), machines cp1 (10.250.0.11)
#                      + w1 (10.250.0.12), init, join, wait until Ready, print nodes/pods and a KUBECONFIG line
#   cluster.sh down    remove the machines and the switch (leaves the provisioning cache)
#   cluster.sh status  nodes and pods of a running cluster
#
# TSADM_CLUSTER_TOOL=tsadm (default) bootstraps with tsadm (init on cp1, join on w1);
# TSADM_CLUSTER_TOOL=kubeadm does the same with the reference kubeadm v1.20.2, for comparison.
# TSADM_INIT_FLAGS / TSADM_JOIN_FLAGS add flags to tsadm's init / join.
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
LOG_TAG=cluster

CP=cp1 CP_IP=$NET_PREFIX.11
WORKER=w1 WORKER_IP=$NET_PREFIX.12
TOOL=${TSADM_CLUSTER_TOOL:-tsadm}
OUT=$CACHE/cluster
MACHINE="$E2E_DIR/machine.sh"
TSADM="$REPO_ROOT/bin/tsadm"
# The project's own Node.js 24 (the `node` devDependency; machines see the repository at the same
# path), else the machine's node (bin/tsadm refuses one older than 24).
NODE="$REPO_ROOT/node_modules/node/bin/node"
[[ -x $NODE ]] || NODE=node
CRI_SOCKET=/run/containerd/containerd.sock
STAGE_TIMES=()
# stage NAME FUNCTION: run and time one stage.
stage() {
  local t0=$SECONDS
  log "=== $1"
  "$2"
  STAGE_TIMES+=("$1=$((SECONDS - t0))s")
  log "=== $1 done in $((SECONDS - t0))s"
}

in_cp() { "$MACHINE" exec "$CP" -- "$@"; }
kubectl_cp() { in_cp kubectl --kubeconfig /etc/kubernetes/admin.conf "$@"; }

# wait_for SECONDS WHAT CMD…: poll CMD every 2 s until it succeeds; fail after SECONDS.
wait_for() {
  local limit=$1 what=$2 t0=$SECONDS
  shift 2
  log "waiting for $what (up to ${limit}s)"
  until "$@" >/dev/null 2>&1; do
    ((SECONDS - t0 < limit)) || die "timed out after ${limit}s waiting for $what"
    sleep 2
  done
  log "$what after $((SECONDS - t0))s"
}

# --- tool ----------------------------------------------------------------------------------
# tsadm must be built (npm run cluster builds first); say so plainly rather than failing inside a machine.
require_tool() {
  [[ $TOOL == kubeadm ]] && return 0
  [[ -f $REPO_ROOT/dist/tsadm.mjs ]] || die "tsadm is not built: run npm run build (npm run cluster does it)"
}

# run_logged LOG CMD…: run CMD showing its output and keeping it in LOG; fail with a pointer to LOG.
run_logged() {
  local logfile=$1 rc
  shift
  set +e
  "$@" 2>&1 | tee "$logfile"
  rc=${PIPESTATUS[0]}
  set -e
  ((rc == 0)) || die "$* failed (exit $rc); see $logfile"
}

# --- stages ----------------------------------------------------------------------------------
# Only what the cluster needs (profile cluster): no relabelled v1.20.3, no stand-ins, no debian-sid.
do_provision() { bash "$E2E_DIR/provision.sh" cluster; }

do_machines() {
  "$MACHINE" up "$CP" "$CP_IP"
  "$MACHINE" up "$WORKER" "$WORKER_IP"
}

do_init() {
  mkdir -p "$OUT"
  "$E2E_DIR/kubeadm-config.sh" "$CP_IP" "$CP" >"$OUT/kubeadm-config.yaml"
  if [[ $TOOL == kubeadm ]]; then
    log "init: the reference kubeadm (TSADM_CLUSTER_TOOL=kubeadm)"
    # Its preflight needs crictl, which Debian lacks: skipped (the images it would pull are imported already).
    run_logged "$OUT/init.log" in_cp kubeadm init --config "$OUT/kubeadm-config.yaml" --skip-phases=preflight
  else
    log "init: tsadm"
    # shellcheck disable=SC2086
    run_logged "$OUT/init.log" in_cp "$NODE" "$TSADM" init --config "$OUT/kubeadm-config.yaml" ${TSADM_INIT_FLAGS:-}
  fi
  in_cp cat /etc/kubernetes/admin.conf >"$OUT/admin.conf"
  chmod 600 "$OUT/admin.conf"
}

# The worker join command init printed (continuation lines joined), or a fresh one from the same tool.
join_command() {
  local cmd
  cmd=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$OUT/init.log" | grep -E '^\s*(kubeadm|tsadm) join ' |
    grep -v -- '--control-plane' | tail -1 | sed 's/^\s*//; s/\s\+/ /g' || true)
  if [[ -z $cmd ]]; then
    if [[ $TOOL == kubeadm ]]; then cmd=$(in_cp kubeadm token create --print-join-command)
    else cmd=$(in_cp "$NODE" "$TSADM" token create --print-join-command); fi
  fi
  echo "$cmd"
}

do_join() {
  local cmd args
  cmd=$(join_command)
  log "join command: ${cmd%% --token *} --token <redacted> --discovery-token-ca-cert-hash ${cmd##* --discovery-token-ca-cert-hash }"
  read -r -a args <<<"$cmd"
  args=("${args[@]:2}") # drop "kubeadm join" / "tsadm join"
  if [[ $TOOL == kubeadm ]]; then
    run_logged "$OUT/join.log" "$MACHINE" exec "$WORKER" -- kubeadm join "${args[@]}" --cri-socket "$CRI_SOCKET" --skip-phases=preflight
  else
    # shellcheck disable=SC2086
    run_logged "$OUT/join.log" "$MACHINE" exec "$WORKER" -- "$NODE" "$TSADM" join "${args[@]}" --cri-socket "$CRI_SOCKET" ${TSADM_JOIN_FLAGS:-}
  fi
}

nodes_ready() {
  local ready
  ready=$(kubectl_cp get nodes -o jsonpath='{range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}')
  grep -qx "$CP=True" <<<"$ready" && grep -qx "$WORKER=True" <<<"$ready"
}

# Mirror pods of the static control plane appear only at the kubelet's next sync (~60 s).
control_plane_running() {
  local pods c
  pods=$(kubectl_cp -n kube-system get pods -o jsonpath='{range .items[*]}{.metadata.name}={.status.phase}{"\n"}{end}')
  for c in etcd kube-apiserver kube-controller-manager kube-scheduler; do
    grep -qx "$c-$CP=Running" <<<"$pods" || return 1
  done
  [[ $(grep -c '^kube-proxy-.*=Running$' <<<"$pods") -ge 2 ]]
}

do_ready() {
  wait_for 300 "both nodes Ready" nodes_ready
  wait_for 300 "control-plane pods and kube-proxy Running" control_plane_running
}

print_access() {
  echo
  kubectl_cp get nodes -o wide
  echo
  kubectl_cp get pods -A -o wide
  echo
  log "CoreDNS has no image on this machine: its pods stay ImagePullBackOff (expected)."
  if ip route get "$CP_IP" 2>/dev/null | grep -q "dev $HOST_LINK" &&
    KUBECONFIG=$OUT/admin.conf "$BIN_DIR/kubectl" get --raw=/healthz >/dev/null 2>&1; then
    log "host kubectl (v1.20.2): $BIN_DIR/kubectl"
    echo "KUBECONFIG=$OUT/admin.conf"
  else
    log "the host has no route to $CP_IP (TSADM_E2E_HOST_LINK=0?): run kubectl inside cp1:"
    log "  $MACHINE exec $CP -- kubectl --kubeconfig /etc/kubernetes/admin.conf get nodes"
    echo "KUBECONFIG=$OUT/admin.conf"
  fi
}

cluster_healthy() {
  local machines
  machines=$("$MACHINE" list 2>/dev/null) || return 1
  grep -qP "^$CP\t$CP_IP\tup$" <<<"$machines" && grep -qP "^$WORKER\t$WORKER_IP\tup$" <<<"$machines" &&
    nodes_ready >/dev/null 2>&1
}

cmd_up() {
  [[ $TOOL == tsadm || $TOOL == kubeadm ]] || die "TSADM_CLUSTER_TOOL must be tsadm or kubeadm"
  require_tool
  stage provision do_provision
  if cluster_healthy; then
    log "cluster already up"
  else
    # Only this cluster's machines: other machines (tests running alongside) are left alone.
    local m machines
    machines=$("$MACHINE" list)
    for m in "$CP" "$WORKER"; do
      if grep -qP "^$m\t" <<<"$machines"; then
        log "removing machine $m left from an earlier run"
        "$MACHINE" down "$m"
      fi
    done
    stage machines do_machines
    stage init do_init
    stage join do_join
    stage ready do_ready
  fi
  print_access
  log "stage times: ${STAGE_TIMES[*]}"
}

cmd_down() {
  # This cluster's machines; the switch goes too once no other machine uses it.
  "$MACHINE" down "$CP"
  "$MACHINE" down "$WORKER"
  [[ -n $("$MACHINE" list) ]] || "$MACHINE" down-all
  rm -f "$OUT/admin.conf"
}

cmd_status() {
  cluster_healthy || log "cluster is not up (or not Ready)"
  kubectl_cp get nodes -o wide && kubectl_cp get pods -A
}

case ${1:-} in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  *) sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
