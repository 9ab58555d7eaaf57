#!/usr/bin/env bash
# The restart seam between tsadm and a host without systemd (fixed contract):
#   $TSADM_SERVICE_MANAGER <start|stop|restart|is-active> <unit>
# exit 0 = success (is-active: 0 = active). This implementation works inside an e2e machine, where
# kubelet-supervisor.sh plays the kubelet unit; machine.sh exec exports TSADM_SERVICE_MANAGER.
#   unit kubelet:     start | stop | restart | is-active
#   unit containerd:  is-active only (machine.sh owns the machine's containerd)
# is-active exits 3 when inactive (like systemctl); unknown units exit 5; misuse exits 2.
set -uo pipefail
RUN=/run/tsadm-machine
CTL=$RUN/kubelet
WAIT_SECONDS=${TSADM_SERVICE_WAIT_SECONDS:-20}

err() { echo "service-manager: $*" >&2; }

(($# == 2)) || { err "usage: $0 start|stop|restart|is-active UNIT"; exit 2; }
action=$1 unit=$2
[[ -f $RUN/env ]] || { err "not inside a tsadm e2e machine (no $RUN/env)"; exit 1; }
# shellcheck source=/dev/null
source "$RUN/env" # NAME IP MDIR E2E_DIR

alive() { local p; p=$(cat "$1" 2>/dev/null) && [[ $p =~ ^[0-9]+$ ]] && kill -0 "$p" 2>/dev/null; }
supervisor_alive() { alive "$MDIR/supervisor.pid"; }
kubelet_alive() { alive "$MDIR/kubelet.pid"; }

# wait_until CMD…: poll for up to WAIT_SECONDS.
wait_until() {
  local i
  for i in $(seq 1 $((WAIT_SECONDS * 10))); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}
no_restart_pending() { [[ ! -e $CTL/restart ]]; }
kubelet_stopped() { ! kubelet_alive; }

case $unit in
  kubelet | kubelet.service) ;;
  containerd | containerd.service)
    [[ $action == is-active ]] || { err "$action containerd: not supported here (machine.sh owns containerd)"; exit 1; }
    alive "$MDIR/containerd.pid" && exit 0 || exit 3
    ;;
  *) err "unknown unit $unit"; exit 5 ;;
esac

case $action in
  is-active)
    supervisor_alive && kubelet_alive && exit 0
    exit 3
    ;;
  start)
    supervisor_alive || { err "kubelet supervisor of $NAME is not running"; exit 1; }
    echo running >"$CTL/want"
    ;;
  restart)
    supervisor_alive || { err "kubelet supervisor of $NAME is not running"; exit 1; }
    echo running >"$CTL/want"
    touch "$CTL/restart"
    # Like systemctl, return once the (re)start was carried out.
    wait_until no_restart_pending || { err "kubelet restart not carried out within ${WAIT_SECONDS}s"; exit 1; }
    ;;
  stop)
    supervisor_alive || exit 0
    echo stopped >"$CTL/want"
    wait_until kubelet_stopped || { err "kubelet did not stop within ${WAIT_SECONDS}s"; exit 1; }
    ;;
  *) err "unknown action $action (start|stop|restart|is-active)"; exit 2 ;;
esac
exit 0
