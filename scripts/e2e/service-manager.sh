#!/usr/bin/env bash
# The restart seam between tsadm and a host without systemd (fixed contract):
#   $TSADM_SERVICE_MANAGER <start|stop|restart|is-active|is-enabled|enable|daemon-reload> <unit>
# exit 0 = success (is-active: 0 = active; is-enabled: 0 = enabled; a manager without is-enabled
# answers non-zero and tsadm then enables, which is idempotent). This implementation works inside
# an e2e machine, where kubelet-supervisor.sh plays the kubelet unit; machine.sh exec exports
# TSADM_SERVICE_MANAGER.
#   unit kubelet:     start | stop | restart | is-active
#                     enable: like systemctl enable: exit 1 ("Unit file kubelet.service does not
#                     exist.") without a unit file, else the multi-user.target.wants symlink to it
#                     is-enabled: what decides whether the kubelet starts at the machine's boot
#                     (lib/machine-init.sh): the symlink, or a machine that is not bare (its
#                     kubelet is installed as enabled)
#   unit containerd:  is-active | start | stop | restart (systemd's part: containerd --config
#                     /etc/containerd/config.toml, detached, PID in $MDIR/containerd.pid, output in
#                     $MDIR/logs/containerd.log; start returns once `ctr version` answers, stop TERMs
#                     and KILLs after 10 s; running containers, i.e. their shims, survive a restart);
#                     enable, is-enabled: exit 0 (the machine starts containerd at every boot)
#   daemon-reload [ANY]: exit 0 (nothing caches units: the supervisor reads them at each start)
# is-active exits 3 when inactive (like systemctl); unknown units exit 5; misuse exits 2.
set -uo pipefail
RUN=/run/tsadm-machine
CTL=$RUN/kubelet
WAIT_SECONDS=${TSADM_SERVICE_WAIT_SECONDS:-20}

err() { echo "service-manager: $*" >&2; }

[[ $# == 2 || ($# == 1 && ${1:-} == daemon-reload) ]] ||
  { err "usage: $0 start|stop|restart|is-active|enable|daemon-reload UNIT"; exit 2; }
action=$1 unit=${2:-}
[[ -f $RUN/env ]] || { err "not inside a tsadm e2e machine (no $RUN/env)"; exit 1; }
# shellcheck source=/dev/null
source "$RUN/env" # NAME IP MDIR E2E_DIR BARE
# shellcheck source=lib/common.sh
source "$E2E_DIR/lib/common.sh" # MACHINE_PATH cgroup_hierarchies kubelet_unit_file KUBELET_WANTS_LINK

[[ $action == daemon-reload ]] && exit 0

alive() { local p; p=$(cat "$1" 2>/dev/null) && [[ $p =~ ^[0-9]+$ ]] && kill -0 "$p" 2>/dev/null; }
supervisor_alive() { alive "$MDIR/supervisor.pid"; }
kubelet_alive() { alive "$MDIR/kubelet.pid"; }

# wait_until CMD…: poll for up to WAIT_SECONDS.
wait_until() {
  local end=$((SECONDS + WAIT_SECONDS))
  while ((SECONDS < end)); do
    "$@" && return 0
    sleep 0.1
  done
  "$@"
}
no_restart_pending() { [[ ! -e $CTL/restart ]]; }
kubelet_stopped() { ! kubelet_alive; }

# --- containerd, as its systemd unit would be run ---------------------------------------------
containerd_gone() { ! alive "$MDIR/containerd.pid" || [[ $(sed 's/.*) //' "/proc/$(cat "$MDIR/containerd.pid")/stat" 2>/dev/null | cut -d' ' -f1) == Z ]]; }
ctr_answers() { timeout 5 ctr version >/dev/null 2>&1; }

stop_containerd() {
  local pid
  alive "$MDIR/containerd.pid" || { rm -f "$MDIR/containerd.pid"; return 0; }
  pid=$(cat "$MDIR/containerd.pid")
  kill -TERM "$pid" 2>/dev/null
  WAIT_SECONDS=10 wait_until containerd_gone || { kill -KILL "$pid" 2>/dev/null; WAIT_SECONDS=5 wait_until containerd_gone; }
  containerd_gone || { err "containerd $pid did not stop"; return 1; }
  rm -f "$MDIR/containerd.pid"
}

start_containerd() {
  alive "$MDIR/containerd.pid" && return 0
  rm -f "$MDIR/containerd.pid"
  # Like machine.sh's daemon: in the machine's system cgroup (teardown finds it), its own session,
  # and the PID written by the process itself (setsid may fork); / and a clean environment, as
  # systemd gives a service.
  (
    cd /
    for h in $(cgroup_hierarchies); do
      [[ -d $h/$NAME/tsadm-system ]] && echo "$BASHPID" >"$h/$NAME/tsadm-system/cgroup.procs"
    done
    # shellcheck disable=SC2016 # $$ and $@ belong to that sh
    exec setsid env -i PATH="$MACHINE_PATH" HOME=/root \
      sh -c 'echo $$ >"$0"; exec "$@"' "$MDIR/containerd.pid" containerd --config /etc/containerd/config.toml
  ) </dev/null >>"$MDIR/logs/containerd.log" 2>&1 &
  WAIT_SECONDS=20 wait_until ctr_answers || { err "containerd is not answering after 20s; see $MDIR/logs/containerd.log"; return 1; }
}

case $unit in
  kubelet | kubelet.service) ;;
  containerd | containerd.service)
    case $action in
      is-active) alive "$MDIR/containerd.pid" && exit 0 || exit 3 ;;
      start) start_containerd || exit 1 ;;
      stop) stop_containerd || exit 1 ;;
      restart) { stop_containerd && start_containerd; } || exit 1 ;;
      enable | is-enabled) ;;
      *) err "unknown action $action (start|stop|restart|is-active|is-enabled|enable)"; exit 2 ;;
    esac
    exit 0
    ;;
  *) err "unknown unit $unit"; exit 5 ;;
esac

case $action in
  enable)
    unit_file=$(kubelet_unit_file) || { echo "Failed to enable unit: Unit file kubelet.service does not exist." >&2; exit 1; }
    if [[ $(readlink "$KUBELET_WANTS_LINK" 2>/dev/null) != "$unit_file" ]]; then
      mkdir -p "$(dirname "$KUBELET_WANTS_LINK")"
      ln -sfn "$unit_file" "$KUBELET_WANTS_LINK"
      echo "Created symlink $KUBELET_WANTS_LINK → $unit_file." >&2
    fi
    ;;
  is-active)
    supervisor_alive && kubelet_alive && exit 0
    exit 3
    ;;
  is-enabled)
    ((BARE)) || exit 0
    [[ -e $KUBELET_WANTS_LINK || -L $KUBELET_WANTS_LINK ]] && exit 0
    exit 1
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
  *) err "unknown action $action (start|stop|restart|is-active|is-enabled|enable)"; exit 2 ;;
esac
exit 0
