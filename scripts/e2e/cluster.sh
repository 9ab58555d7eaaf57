#!/usr/bin/env bash
# A real two-node Kubernetes v1.20.2 cluster on this host (npm run cluster / cluster:down):
#   cluster.sh up      provision if needed, machines cp1 (10.250.0.11) + w1 (10.250.0.12), init, join,
#                      wait until Ready, print nodes/pods and a KUBECONFIG line
#   cluster.sh down    remove the machines and the switch (leaves the provisioning cache)
#   cluster.sh status  nodes and pods of a running cluster
#
# TSADM_CLUSTER_TOOL=tsadm (default) bootstraps with tsadm where it has the phases and says which it
# lacks (those run with the reference kubeadm); TSADM_CLUSTER_TOOL=kubeadm uses kubeadm only.
# TSADM_CLUSTER_KUBEADM_PHASES="etcd addon …" sends those top-level phases to kubeadm anyway.
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
CRI_SOCKET=/run/containerd/containerd.sock
# kubeadm v1.20's top-level phases; the parent ones run through their "all" child.
INIT_PHASES=(preflight certs kubeconfig kubelet-start control-plane etcd upload-config upload-certs
  mark-control-plane bootstrap-token kubelet-finalize addon)
JOIN_PHASES=(preflight control-plane-prepare kubelet-start control-plane-join)
declare -A PHASE_ARGS=([certs]="certs all" [kubeconfig]="kubeconfig all" [control-plane]="control-plane all"
  [etcd]="etcd local" [upload-config]="upload-config all" [kubelet-finalize]="kubelet-finalize all"
  [addon]="addon all")

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

# --- tool choice -----------------------------------------------------------------------------
tsadm_runs() { [[ -f $TSADM ]] && node "$TSADM" --help >/dev/null 2>&1; }
# tsadm_has CMD PHASE: tsadm offers `CMD phase PHASE` (kubeadm-compatible CLI). Its help must name
# the phase: CLI libraries answer --help of an unknown subcommand with the parent's help and exit 0.
tsadm_has() {
  local out
  out=$(node "$TSADM" "$1" phase "$2" --help 2>&1) && grep -q "$1 phase $2\b" <<<"$out"
}

# choose_phases CMD PHASES…: sets HAVE (phases tsadm has) and LACK (the others).
choose_phases() {
  local cmd=$1 p
  shift
  HAVE=() LACK=()
  if [[ $TOOL == kubeadm ]] || ! tsadm_runs; then
    LACK=("$@")
  else
    for p in "$@"; do
      if ! contains "$p" ${TSADM_CLUSTER_KUBEADM_PHASES:-} && tsadm_has "$cmd" "$p"; then
        HAVE+=("$p")
      else
        LACK+=("$p")
      fi
    done
  fi
}

explain_choice() {
  local cmd=$1
  if [[ $TOOL == kubeadm ]]; then
    log "$cmd: TSADM_CLUSTER_TOOL=kubeadm: using the reference kubeadm"
  elif ! tsadm_runs; then
    log "$cmd: tsadm lacks phases ${LACK[*]} (it does not run: try npm run build); using reference kubeadm for them"
  elif ((${#LACK[@]} > 0)); then
    log "$cmd: tsadm lacks phases ${LACK[*]}; using reference kubeadm for them"
  else
    log "$cmd: tsadm has every phase: using tsadm"
  fi
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

contains() { local x=$1; shift; printf '%s\n' "$@" | grep -qx -- "$x"; }

# --- stages ----------------------------------------------------------------------------------
do_provision() { bash "$E2E_DIR/provision.sh"; }

do_machines() {
  "$MACHINE" up "$CP" "$CP_IP"
  "$MACHINE" up "$WORKER" "$WORKER_IP"
}

do_init() {
  mkdir -p "$OUT"
  "$E2E_DIR/kubeadm-config.sh" "$CP_IP" "$CP" >"$OUT/kubeadm-config.yaml"
  choose_phases init "${INIT_PHASES[@]}"
  explain_choice init
  if ((${#HAVE[@]} == 0)); then
    # Reference kubeadm end to end. Preflight needs crictl, which Debian lacks: skipped (the
    # images it would pull are imported already).
    run_logged "$OUT/init.log" in_cp kubeadm init --config "$OUT/kubeadm-config.yaml" --skip-phases=preflight
  elif ((${#LACK[@]} == 0)); then
    # shellcheck disable=SC2086
    run_logged "$OUT/init.log" in_cp node "$TSADM" init --config "$OUT/kubeadm-config.yaml" ${TSADM_INIT_FLAGS:-}
  else
    run_logged "$OUT/init.log" init_by_phases
  fi
  in_cp cat /etc/kubernetes/admin.conf >"$OUT/admin.conf"
  chmod 600 "$OUT/admin.conf"
}

# Mixed init: each phase from tsadm when it has it, else from kubeadm (preflight only from tsadm).
init_by_phases() {
  local p args
  for p in "${INIT_PHASES[@]}"; do
    args=${PHASE_ARGS[$p]:-$p}
    if contains "$p" "${HAVE[@]}"; then
      log "init phase $p: tsadm"
      # shellcheck disable=SC2086
      in_cp node "$TSADM" init phase $args --config "$OUT/kubeadm-config.yaml" || return 1
    elif [[ $p == preflight ]]; then
      log "init phase preflight: skipped (kubeadm's needs crictl)"
    else
      log "init phase $p: kubeadm"
      # shellcheck disable=SC2086
      in_cp kubeadm init phase $args --config "$OUT/kubeadm-config.yaml" || return 1
    fi
    # kubeadm's hidden wait-control-plane phase sits between etcd and upload-config.
    [[ $p == etcd ]] && wait_for 240 "the API server" kubectl_cp get --raw=/healthz
  done
  # Printed as kubeadm does, so join_command finds it in the log.
  kubectl_join_command
}

kubectl_join_command() { in_cp kubeadm token create --print-join-command; }

# The worker join command kubeadm/tsadm printed (continuation lines joined), or a fresh one.
join_command() {
  local cmd
  cmd=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$OUT/init.log" | grep -E '^\s*kubeadm join ' |
    grep -v -- '--control-plane' | tail -1 | sed 's/^\s*//; s/\s\+/ /g' || true)
  [[ -n $cmd ]] || cmd=$(kubectl_join_command)
  echo "$cmd"
}

do_join() {
  local cmd args
  cmd=$(join_command)
  log "join command: $cmd"
  read -r -a args <<<"${cmd#kubeadm join }"
  choose_phases join "${JOIN_PHASES[@]}"
  explain_choice join
  if ((${#HAVE[@]} == 0)); then
    run_logged "$OUT/join.log" "$MACHINE" exec "$WORKER" -- kubeadm join "${args[@]}" --cri-socket "$CRI_SOCKET" --skip-phases=preflight
  elif ((${#LACK[@]} == 0)); then
    # shellcheck disable=SC2086
    run_logged "$OUT/join.log" "$MACHINE" exec "$WORKER" -- node "$TSADM" join "${args[@]}" --cri-socket "$CRI_SOCKET" ${TSADM_JOIN_FLAGS:-}
  else
    # A worker needs only kubelet-start (control-plane-prepare/-join do nothing for it).
    local tool=(kubeadm)
    contains kubelet-start "${HAVE[@]}" && tool=(node "$TSADM")
    log "join phase kubelet-start: ${tool[*]}"
    run_logged "$OUT/join.log" "$MACHINE" exec "$WORKER" -- "${tool[@]}" join phase kubelet-start "${args[@]}" --cri-socket "$CRI_SOCKET"
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
