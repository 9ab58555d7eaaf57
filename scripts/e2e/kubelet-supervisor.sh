#!/usr/bin/env bash
# Plays systemd's kubelet.service with kubeadm's 10-kubeadm.conf drop-in, inside one e2e machine
# (machine.sh starts it as a daemon). It:
#   - waits for /var/lib/kubelet/config.yaml (like the real unit crash-looping until kubeadm writes
#     it) and kubeadm-flags.env (or 3 s of quiet after config.yaml),
#   - runs  kubelet --bootstrap-kubeconfig=… --kubeconfig=… --config=… $KUBELET_KUBEADM_ARGS
#           $KUBELET_EXTRA_ARGS + this environment's flags (cgroup root, node IP, swap, cgroupfs),
#   - restarts it when it exits (after RESTART_DELAY s), when config.yaml, kubeadm-flags.env or
#     /etc/default/kubelet change (what `systemctl restart kubelet` in kubeadm achieves), and when
#     service-manager.sh asks (restart request file),
#   - stops it while service-manager.sh wants it stopped.
# On a bare machine (BARE=1, machine.sh up --bare) it plays systemd more faithfully: the kubelet
# starts only once a kubelet unit file (/etc/systemd/system, /lib/systemd/system or
# /usr/lib/systemd/system) and kubeadm's drop-in kubelet.service.d/10-kubeadm.conf exist, and the
# program run is the one the unit's ExecStart= names (/usr/bin/kubelet for kubeadm's unit), not
# `kubelet` from PATH; until then it waits (and says why, once). machine-init.sh sets the initial
# `want` from whether the unit is enabled, as systemd does at boot.
# Control files live in the machine's private /run/tsadm-machine/kubelet: `want` (running|stopped)
# and `restart` (present = restart requested). The kubelet's PID goes to $MDIR/kubelet.pid.
set -uo pipefail
# shellcheck source=/dev/null
source /run/tsadm-machine/env # NAME IP MDIR E2E_DIR BARE
# shellcheck source=lib/common.sh
source "$E2E_DIR/lib/common.sh" # kubelet_unit_file kubelet_dropin
CTL=/run/tsadm-machine/kubelet
CONFIG=/var/lib/kubelet/config.yaml
FLAGS_ENV=/var/lib/kubelet/kubeadm-flags.env
DEFAULTS_ENV=/etc/default/kubelet
KUBELET_LOG=$MDIR/logs/kubelet.log
RESTART_DELAY=${TSADM_KUBELET_RESTART_DELAY:-2}

kubelet_pid=""
started_fp=""
last_exit=-100
kubelet_bin=kubelet # bare machines: the unit's ExecStart= program (unit_ready)
unit_wait=""        # bare machines: why the unit cannot start ("" = it can)

say() { printf '%s supervisor: %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# Content fingerprint of everything the unit reads.
fingerprint() { cat "$CONFIG" "$FLAGS_ENV" "$DEFAULTS_ENV" 2>/dev/null | md5sum | cut -d' ' -f1; }

# The loop below runs every 0.5 s in every machine for the whole e2e run, so its steady state uses
# bash builtins only: a fork here costs ~5 ms of kernel time on this VM, and the first version
# (cat, md5sum, cut and sleep each turn) took ~9% of a core per machine: over a core with the
# ten-odd machines two e2e files keep up (measured with the CI-like run's process sampler,
# BENCHMARKS.md). The content fingerprint is computed only when a file may have changed: one of
# them appeared or went away, or is newer than the mark written when the kubelet started (bash's
# -nt compares nanosecond mtimes; an atomic rename brings the new file's own mtime).
MARK=/run/tsadm-machine/kubelet/started
presence() { local f p=""; for f in "$CONFIG" "$FLAGS_ENV" "$DEFAULTS_ENV"; do [[ -e $f ]] && p+=1 || p+=0; done; echo "$p"; }
started_presence=""
may_have_changed() {
  local f p=""
  for f in "$CONFIG" "$FLAGS_ENV" "$DEFAULTS_ENV"; do [[ -e $f ]] && p+=1 || p+=0; done
  [[ $p != "$started_presence" ]] && return 0
  for f in "$CONFIG" "$FLAGS_ENV" "$DEFAULTS_ENV"; do [[ -e $f && $f -nt $MARK ]] && return 0; done
  return 1
}
# mark_start: written before the fingerprint is taken, so a write during or after it is newer.
mark_start() {
  printf '%s\n' "$EPOCHREALTIME" >"$MARK"
  started_presence=$(presence)
}

# env_value FILE VAR: VAR's value from a systemd EnvironmentFile (VAR="…" or VAR=…).
env_value() {
  [[ -f $1 ]] || return 0
  sed -n "s/^[[:space:]]*$2=//p" "$1" | tail -1 | sed 's/^"\(.*\)"$/\1/; s/^'"'"'\(.*\)'"'"'$/\1/'
}

# The unit may start: config.yaml is there, and so is kubeadm-flags.env — or config.yaml has been
# left alone for 3 s (kubeadm writes the two files moments apart, in either order; a tool that
# writes no flags file still gets its kubelet).
may_start() {
  [[ -f $CONFIG ]] || return 1
  [[ -f $FLAGS_ENV ]] || (($(date +%s) - $(stat -c %Y "$CONFIG") >= 3))
}

kubelet_running() { [[ -n $kubelet_pid ]] && kill -0 "$kubelet_pid" 2>/dev/null; }

# exec_start FILE…: the program of the effective ExecStart= in these unit files, read in order: an
# empty ExecStart= clears the list (as kubeadm's drop-in does), then the first non-empty one counts.
# systemd's prefixes (-@+!:) are dropped.
exec_start() {
  sed -n 's/^[[:space:]]*ExecStart[[:space:]]*=[[:space:]]*//p' "$@" |
    awk 'NF == 0 { prog = ""; next } prog == "" { prog = $1; sub(/^[-@+!:]+/, "", prog) } END { print prog }'
}

# unit_ready: on a normal machine always (the kubelet from PATH). On a bare machine: the unit file and
# kubeadm's drop-in exist and ExecStart= names an executable (then in kubelet_bin); otherwise says
# once why the kubelet is not started.
unit_ready() {
  ((${BARE:-0})) || return 0
  local unit dropin why=""
  if ! unit=$(kubelet_unit_file); then
    why="no kubelet unit file (${KUBELET_UNIT_DIRS[*]/%//kubelet.service})"
  elif ! dropin=$(kubelet_dropin "$unit"); then
    why="no kubeadm drop-in kubelet.service.d/10-kubeadm.conf for $unit"
  else
    kubelet_bin=$(exec_start "$unit" "$dropin")
    if [[ -z $kubelet_bin ]]; then
      why="no ExecStart= in $unit or $dropin"
    elif [[ ! -x $kubelet_bin ]]; then
      why="ExecStart= program $kubelet_bin is not an executable file"
    fi
  fi
  [[ -n $why && $why != "$unit_wait" ]] && say "not starting the kubelet: $why; waiting"
  [[ -z $why && -n $unit_wait ]] && say "kubelet unit ready: $unit + $dropin, ExecStart $kubelet_bin"
  unit_wait=$why
  [[ -z $why ]]
}

start_kubelet() {
  local kubeadm_args extra_args
  kubeadm_args=$(env_value "$FLAGS_ENV" KUBELET_KUBEADM_ARGS)
  extra_args=$(env_value "$DEFAULTS_ENV" KUBELET_EXTRA_ARGS)
  mark_start
  started_fp=$(fingerprint)
  # Word splitting of the two variables is intended: systemd splits $VAR in ExecStart the same way.
  # shellcheck disable=SC2086
  set -- --bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf \
    --kubeconfig=/etc/kubernetes/kubelet.conf --config="$CONFIG" $kubeadm_args $extra_args \
    --cgroup-root="/$NAME" --node-ip="$IP" --fail-swap-on=false --cgroup-driver=cgroupfs
  say "starting: $kubelet_bin $*"
  echo "=== $(date -u +%FT%TZ) $kubelet_bin $*" >>"$KUBELET_LOG"
  "$kubelet_bin" "$@" </dev/null >>"$KUBELET_LOG" 2>&1 &
  kubelet_pid=$!
  echo "$kubelet_pid" >"$MDIR/kubelet.pid"
}

stop_kubelet() {
  local why=$1 i
  kubelet_running || return 0
  say "stopping kubelet $kubelet_pid ($why)"
  kill -TERM "$kubelet_pid" 2>/dev/null
  for i in $(seq 1 100); do
    kubelet_running || break
    sleep 0.1
  done
  kubelet_running && kill -KILL "$kubelet_pid" 2>/dev/null
  wait "$kubelet_pid" 2>/dev/null
  kubelet_pid=""
  rm -f "$MDIR/kubelet.pid"
}

on_term() {
  stop_kubelet "supervisor stopping"
  exit 0
}
trap on_term TERM INT

mkdir -p "$CTL"
[[ -f $CTL/want ]] || echo running >"$CTL/want"
# The loop's pause: a read with a timeout on a FIFO nobody writes (a builtin; `sleep` forks).
[[ -p $CTL/tick ]] || mkfifo "$CTL/tick"
exec {tick}<>"$CTL/tick"
say "supervising kubelet of $NAME ($IP)"
while true; do
  want=running
  [[ -f $CTL/want ]] && { read -r want <"$CTL/want" || want=running; }
  if kubelet_running; then
    if [[ $want == stopped ]]; then
      stop_kubelet "stop requested"
    elif [[ -e $CTL/restart ]]; then
      rm -f "$CTL/restart"
      stop_kubelet "restart requested"
      [[ -f $CONFIG ]] && unit_ready && start_kubelet
    elif may_have_changed; then
      if [[ $(fingerprint) != "$started_fp" ]]; then
        # Let a writer finish the set of files (kubeadm writes two) before restarting once.
        sleep 1
        stop_kubelet "configuration changed"
        [[ -f $CONFIG ]] && unit_ready && start_kubelet
      else
        mark_start # rewritten with the same content: nothing to restart for
      fi
    fi
  else
    if [[ -n $kubelet_pid ]]; then
      wait "$kubelet_pid" 2>/dev/null
      say "kubelet $kubelet_pid exited with status $?"
      kubelet_pid=""
      rm -f "$MDIR/kubelet.pid"
      last_exit=$SECONDS
    fi
    if [[ $want == running ]] && unit_ready && may_start; then
      if [[ -e $CTL/restart ]] || ((SECONDS - last_exit >= RESTART_DELAY)); then
        rm -f "$CTL/restart"
        start_kubelet
      fi
    elif [[ ! -f $CONFIG || -n $unit_wait ]]; then
      # Nothing to start: a restart request is satisfied (the real unit would just fail again).
      [[ -e $CTL/restart ]] && rm -f "$CTL/restart"
    fi
  fi
  # TERM is handled when the read returns, within half a second.
  read -r -t 0.5 -u "$tick" _ || true
done
