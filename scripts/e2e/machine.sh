#!/usr/bin/env bash
# E2E "machines": network namespaces on a private switch, each with its own mount/UTS namespace,
# containerd and a kubelet supervisor (scripts/e2e/README.md describes the harness).
#
#   machine.sh up NAME IP [--bare]   create and start a machine (IP in 10.250.0.2-254), idempotent;
#                                    --bare: the OS as Debian's packages left it, for tsadm's host
#                                    phase to prepare (no kubelet/kubeadm/kubectl, no sysctls set,
#                                    Debian's containerd config.toml; the kubelet supervisor then
#                                    waits for a kubelet unit + kubeadm's drop-in; kept by stop/start)
#   machine.sh exec NAME [--] CMD…   run CMD inside the machine (exit code passes through)
#   machine.sh daemon NAME LABEL [--] CMD…   run CMD in the background inside the machine (PID in
#                                    LABEL.pid, output in logs/LABEL.log; stopped with the machine)
#   machine.sh stop NAME             power off: SIGKILL every process, drop its network; keep its disk
#   machine.sh start NAME            boot a stopped machine from its disk: containerd and the kubelet
#                                    supervisor start again, the kubelet from what is on disk
#   machine.sh down NAME             stop everything of the machine and remove all its traces
#   machine.sh down-all              down every machine (also leftovers of interrupted runs) + switch
#   machine.sh list                  NAME IP STATE for every known machine (+ "bare" for bare ones)
#   machine.sh status NAME           holder/containerd/supervisor/kubelet PIDs (+ "mode bare")
#   machine.sh logs NAME [WHAT]      tail a log: kubelet (default), containerd, supervisor, holder
#   machine.sh systemd NAME          boot a real systemd inside the running machine (PID 1 of its own
#                                    PID namespace; lib/systemd-init.sh says what it can see), idempotent
#   machine.sh sd-exec NAME [--] CMD…  run CMD where that systemd is PID 1, without TSADM_SERVICE_MANAGER:
#                                    tsadm's service seam then drives the real systemctl
#   machine.sh systemd-stop NAME     SIGKILL that systemd (and so everything it started); remove its cgroups
#
# Inside a machine: hostname NAME; /etc /usr /var /root are private overlays whose upper dirs are
# on the machine's disk (…/disk/ovl), so they outlive stop + start; /run and /tmp are private tmpfs
# (gone at stop, as on a real machine); /var/lib/{kubelet,etcd,containerd} are real-disk dirs under
# $TSADM_E2E_STATE_DIR/machines/NAME/disk; the repository, the cache and the machine dir are the
# host's. Commands get PATH with the provisioned kubelet/kubeadm/kubectl first (a bare machine has
# none) and TSADM_SERVICE_MANAGER pointing at service-manager.sh.
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
LOG_TAG=machine

usage() { sed -n '2,/^[^#]/{/^#/p}' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2; }

holder_pid() { pid_alive "$(machine_dir "$1")/holder.pid"; }

# --- network ---------------------------------------------------------------------------------
# Machines come up in parallel: the first creates the switch, the others wait for it (a lock, not
# a check-then-create race that fails with "File exists").
ensure_switch() {
  (
    flock 9
    if ! ip netns list | grep -qx "$SWITCH_NS\( .*\)\?"; then
      ip netns add "$SWITCH_NS"
      ip -n "$SWITCH_NS" link set lo up
      ip -n "$SWITCH_NS" link add "$BRIDGE" type bridge
      ip -n "$SWITCH_NS" link set "$BRIDGE" up
    fi
    # The host's leg on the switch: lets host tools (kubectl with the copied admin.conf) reach the
    # machines. A connected /24 only; the host is no router (its ip_forward is left alone).
    if [[ ${TSADM_E2E_HOST_LINK:-1} == 1 ]] && ! ip link show "$HOST_LINK" >/dev/null 2>&1; then
      ip link add "$HOST_LINK" type veth peer name "$HOST_LINK_PEER" netns "$SWITCH_NS"
      ip -n "$SWITCH_NS" link set "$HOST_LINK_PEER" master "$BRIDGE" up
      ip addr add "$HOST_IP/24" dev "$HOST_LINK"
      ip link set "$HOST_LINK" up
    fi
  ) 9>/run/tsadm-e2e-switch.lock
}

create_netns() {
  local name=$1 ip=$2 ns
  ns=$(netns_of "$name")
  ip netns add "$ns"
  ip -n "$SWITCH_NS" link add "v-$name" type veth peer name eth0 netns "$ns"
  ip -n "$SWITCH_NS" link set "v-$name" master "$BRIDGE" up
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "$ip/24" dev eth0
  ip -n "$ns" link set eth0 up
  # No default route (nothing may leave), but node processes must reach ClusterIPs: kube-proxy
  # DNATs them in OUTPUT, which needs a route to exist first. Default service CIDR only.
  ip -n "$ns" route add "$SERVICE_CIDR" dev eth0
}

# Pod traffic between machines: each machine's pod /24 is routed via that machine's IP.
add_pod_routes() {
  local name=$1 ip=$2 other oip
  for other in $(known_machines); do
    [[ $other == "$name" ]] && continue
    oip=$(cat "$(machine_dir "$other")/ip" 2>/dev/null) || continue
    holder_pid "$other" >/dev/null || continue
    ip -n "$(netns_of "$name")" route replace "10.244.${oip##*.}.0/24" via "$oip"
    ip -n "$(netns_of "$other")" route replace "10.244.${ip##*.}.0/24" via "$ip"
  done
}

# --- cgroups ---------------------------------------------------------------------------------
# One root per machine in every hierarchy (kubelet --cgroup-root=/NAME); the machine's own
# daemons and exec'd commands live in /NAME/tsadm-system.
create_cgroups() {
  local name=$1 h d
  for h in $(cgroup_hierarchies); do
    for d in "$h/$name" "$h/$name/tsadm-system"; do
      mkdir -p "$d"
      if [[ -f $d/cpuset.cpus ]]; then
        cat "$(dirname "$d")/cpuset.cpus" >"$d/cpuset.cpus"
        cat "$(dirname "$d")/cpuset.mems" >"$d/cpuset.mems"
      fi
    done
  done
}

# PIDs of every process in the machine's cgroups (any hierarchy).
cgroup_pids() {
  local name=$1 h
  for h in $(cgroup_hierarchies); do
    [[ -d $h/$name ]] && find "$h/$name" -name cgroup.procs -exec cat {} + 2>/dev/null
  done | sort -un
}

remove_cgroups() {
  local name=$1 h try
  for try in $(seq 1 50); do
    for h in $(cgroup_hierarchies); do
      [[ -d $h/$name ]] && find "$h/$name" -depth -type d -exec rmdir {} + 2>/dev/null
    done
    local left=0
    for h in $(cgroup_hierarchies); do [[ -d $h/$name ]] && left=1; done
    ((left == 0)) && return 0
    sleep 0.2
  done
  log "warning: cgroup root /$name could not be fully removed"
}

# --- processes -------------------------------------------------------------------------------
# daemon NAME LABEL CMD…: start CMD detached inside the machine, PID in $MDIR/LABEL.pid, output
# appended to $MDIR/logs/LABEL.log. setsid+exec keep the recorded PID the daemon's own.
daemon() {
  local name=$1 label=$2 mdir hpid
  shift 2
  mdir=$(machine_dir "$name")
  hpid=$(holder_pid "$name") || die "machine $name is not running"
  rm -f "$mdir/$label.pid"
  setsid nsenter -t "$hpid" -m -u -n -- "$E2E_DIR/lib/enter.sh" "$name" \
    sh -c 'echo $$ >"$0"; exec "$@"' "$mdir/$label.pid" "$@" \
    </dev/null >>"$mdir/logs/$label.log" 2>&1 &
  local i
  for i in $(seq 1 50); do
    pid_alive "$mdir/$label.pid" >/dev/null && return 0
    sleep 0.1
  done
  die "$label did not start in $name; see $mdir/logs/$label.log"
}

# Processes sharing the machine's mount namespace that are not in its cgroups (e.g. started with
# a raw nsenter). Only trusted while the holder, which pins the namespace, is alive.
mntns_pids() {
  local name=$1 hpid ns
  hpid=$(holder_pid "$name") || return 0
  ns=$(readlink "/proc/$hpid/ns/mnt") || return 0
  [[ $ns == "$(cat "$(machine_dir "$name")/mntns" 2>/dev/null)" ]] || return 0
  # One find for every process (a readlink per process forked hundreds of times per call: ~60 s per
  # machine's teardown on a loaded 2-core VM). -lname matches the link's target as a glob, so the
  # brackets of "mnt:[4026532…]" are escaped; a process that ends meanwhile is simply not listed.
  local pat=${ns//[/\\[}
  pat=${pat//]/\\]}
  find /proc/[0-9]*/ns/mnt -maxdepth 0 -lname "$pat" -printf '%h\n' 2>/dev/null | while IFS=/ read -r _ _ p _; do echo "$p"; done
}

# running PID: alive and not a zombie waiting for its parent.
running() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [[ -n $state && $state != Z ]]
}

# stop_pidfile FILE SECONDS: TERM the process, KILL it after SECONDS.
stop_pidfile() {
  local pid i
  pid=$(pid_alive "$1") || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 $(($2 * 10))); do
    running "$pid" || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

# Kill every process of the machine: freeze its cgroups so nothing forks away, KILL, thaw. Then
# wait until the killed processes are reaped, so no zombie outlives the teardown.
kill_all() {
  local name=$1 fz try pids killed=""
  fz=$(cgroup_hierarchies | grep '/freezer$' || true)
  for try in $(seq 1 30); do
    pids=$( (cgroup_pids "$name"; mntns_pids "$name") | sort -un | grep -vx "$$" || true)
    if [[ -z $pids ]]; then
      wait_reaped $killed
      return 0
    fi
    killed+=" $pids"
    [[ -n $fz && -d $fz/$name ]] && echo FROZEN >"$fz/$name/freezer.state" 2>/dev/null || true
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    [[ -n $fz && -d $fz/$name ]] && echo THAWED >"$fz/$name/freezer.state" 2>/dev/null || true
    sleep 0.2
  done
  log "warning: processes of $name survived: $pids"
}

wait_reaped() {
  local pid i
  for pid in "$@"; do
    for i in $(seq 1 50); do
      [[ -e /proc/$pid ]] || break
      sleep 0.1
    done
  done
}

known_machines() {
  {
    [[ -d $STATE/machines ]] && ls -1 "$STATE/machines"
    ip netns list 2>/dev/null | awk '{print $1}' | grep '^tsadm-' | grep -vx "$SWITCH_NS" | sed 's/^tsadm-//'
  } | sort -u
}

# --- commands --------------------------------------------------------------------------------
cmd_up() {
  local name="" ip="" bare=0 mdir hpid a
  for a in "$@"; do
    case $a in
      --bare) bare=1 ;;
      -*) usage ;;
      *) if [[ -z $name ]]; then name=$a; elif [[ -z $ip ]]; then ip=$a; else usage; fi ;;
    esac
  done
  [[ -n $name && -n $ip ]] || usage
  validate_name "$name"
  validate_ip "$ip"
  mdir=$(machine_dir "$name")
  # A machine counts as up only when a previous `up` finished (file `up`); a half-made one (an `up`
  # that failed; its logs are kept for a look) is removed and made anew.
  if hpid=$(holder_pid "$name") && [[ -f $mdir/up ]]; then
    [[ $(cat "$mdir/ip") == "$ip" ]] || die "machine $name is already up with IP $(cat "$mdir/ip")"
    if [[ -f $mdir/bare ]] && ((!bare)); then die "machine $name is already up as a bare machine"; fi
    if [[ ! -f $mdir/bare ]] && ((bare)); then die "machine $name is already up, not as a bare machine"; fi
    log "machine $name is already up ($ip)"
    return 0
  fi
  [[ -d $mdir || -e /run/netns/$(netns_of "$name") ]] && { log "removing leftovers of $name"; cmd_down "$name"; }
  for other in $(known_machines); do
    [[ $(cat "$(machine_dir "$other")/ip" 2>/dev/null) == "$ip" ]] && die "IP $ip is taken by machine $other"
  done
  [[ -x $BIN_DIR/kubelet ]] && compgen -G "$IMG_DIR/*.tar" >/dev/null ||
    die "components not provisioned in $CACHE: run scripts/e2e/provision.sh"

  local t0=$SECONDS
  mkdir -p "$mdir/logs" "$mdir/disk"
  echo "$ip" >"$mdir/ip"
  # The mode is part of the machine: machine-init.sh reads it at every boot (start after stop too).
  ((bare)) && touch "$mdir/bare"
  boot "$name" "$ip" fresh
  log "machine $name up at $ip$( ((bare)) && echo " (bare)") in $((SECONDS - t0))s (holder $(holder_pid "$name"))"
}

# boot NAME IP fresh|again: network, cgroups, the holder (machine-init.sh), containerd, the images
# (fresh only: a machine booted again has them on its disk), the kubelet supervisor, pod routes.
boot() {
  local name=$1 ip=$2 mode=$3 mdir hpid i f
  mdir=$(machine_dir "$name")
  ensure_switch
  create_netns "$name" "$ip"
  local h
  for h in $(cgroup_hierarchies); do
    [[ -d $h/$name && ! -d $h/$name/tsadm-system ]] && die "cgroup $h/$name exists and is not ours"
  done
  create_cgroups "$name"

  # The holder: one process that keeps the machine's namespaces and mounts alive.
  local procs=""
  for f in $(cgroup_hierarchies); do procs+=" $f/$name/tsadm-system/cgroup.procs"; done
  setsid sh -c 'for f in $1; do echo $$ >"$f"; done; echo $$ >"$2"; shift 2; exec "$@"' holder \
    "$procs" "$mdir/holder.pid" \
    nsenter --net="/run/netns/$(netns_of "$name")" unshare --mount --uts --propagation private -- \
    "$E2E_DIR/lib/machine-init.sh" "$name" "$ip" </dev/null >>"$mdir/logs/holder.log" 2>&1 &
  for i in $(seq 1 100); do
    [[ -f $mdir/ready ]] && break
    sleep 0.1
  done
  hpid=$(holder_pid "$name") && [[ -f $mdir/ready ]] || {
    tail -20 "$mdir/logs/holder.log" >&2
    die "machine $name did not come up"
  }
  readlink "/proc/$hpid/ns/mnt" >"$mdir/mntns"

  daemon "$name" containerd containerd --config /etc/containerd/config.toml
  for i in $(seq 1 100); do
    mexec "$name" ctr version >/dev/null 2>&1 && break
    sleep 0.2
  done
  mexec "$name" ctr version >/dev/null 2>&1 || die "containerd of $name is not answering; see $mdir/logs/containerd.log"
  if [[ $mode == fresh ]]; then
    for f in "$IMG_DIR"/*.tar; do
      # The log goes with the machine when a test file destroys it: its last lines go into the error.
      mexec "$name" ctr -n k8s.io images import "$f" >>"$mdir/logs/images.log" 2>&1 ||
        die "importing $f into $name failed: $(tail -3 "$mdir/logs/images.log" | tr '\n' ' ')(in $mdir/logs/images.log)"
    done
  fi
  daemon "$name" supervisor "$E2E_DIR/kubelet-supervisor.sh"
  add_pod_routes "$name" "$ip"
  rm -f "$mdir/stopped"
  touch "$mdir/up"
}

cmd_exec() {
  local name=${1:-} hpid
  [[ -n $name ]] || usage
  shift
  [[ ${1:-} == -- ]] && shift
  (($# > 0)) || usage
  hpid=$(holder_pid "$name") || die "machine $name is not running"
  TSADM_E2E_CWD=$PWD exec nsenter -t "$hpid" -m -u -n -- "$E2E_DIR/lib/enter.sh" "$name" "$@"
}

# mexec NAME CMD…: like `exec`, for use inside this script (returns instead of exec'ing).
mexec() {
  local name=$1 hpid
  shift
  hpid=$(holder_pid "$name") || die "machine $name is not running"
  nsenter -t "$hpid" -m -u -n -- "$E2E_DIR/lib/enter.sh" "$name" "$@"
}

cmd_down() {
  local name=${1:-} mdir
  [[ -n $name ]] || usage
  validate_name "$name"
  mdir=$(machine_dir "$name")
  local t0=$SECONDS
  # kubelet first (so it restarts nothing), then containerd, then whatever is left, holder last.
  stop_pidfile "$mdir/supervisor.pid" 15
  stop_pidfile "$mdir/kubelet.pid" 10
  stop_pidfile "$mdir/containerd.pid" 10
  power_off "$name"
  if [[ -d $mdir ]]; then
    # Every mount of the machine lived in its own namespace; refuse to delete through a mount.
    if grep -q " ${mdir}[/ ]" /proc/self/mountinfo; then
      die "$mdir still has mounts on the host; not removing it"
    fi
    rm -rf "$mdir"
  fi
  log "machine $name down in $((SECONDS - t0))s"
}

# Everything a running machine has outside its disk: processes (SIGKILL, as a power cut), cgroups,
# its network namespace. The machine dir (disk, IP, logs) stays.
power_off() {
  local name=$1 mdir ns
  mdir=$(machine_dir "$name")
  ns=$(netns_of "$name")
  # The moment of the cut (epoch ms): every process is frozen and SIGKILLed right after. What
  # follows (reaping, cgroups, the network) is the harness tidying up, and takes 4-10 s under load;
  # a test timing a failover counts from here (test/e2e/harness.ts, stopMachine).
  if [[ -d $mdir ]]; then date +%s%3N >"$mdir/power-cut"; fi
  kill_all "$name"
  stop_pidfile "$mdir/holder.pid" 5
  kill_all "$name"
  remove_cgroups "$name"
  if [[ -e /run/netns/$ns ]]; then
    ip -n "$SWITCH_NS" link del "v-$name" 2>/dev/null || true
    ip netns del "$ns"
  fi
  rm -f "$mdir"/*.pid "$mdir/mntns" "$mdir/ready"
}

cmd_stop() {
  local name=${1:-} mdir
  [[ -n $name ]] || usage
  validate_name "$name"
  mdir=$(machine_dir "$name")
  [[ -f $mdir/up ]] || die "machine $name is not up"
  local t0=$SECONDS
  rm -f "$mdir/up"
  power_off "$name"
  touch "$mdir/stopped"
  log "machine $name stopped in $((SECONDS - t0))s (disk kept)"
}

cmd_start() {
  local name=${1:-} mdir ip other
  [[ -n $name ]] || usage
  validate_name "$name"
  mdir=$(machine_dir "$name")
  [[ -f $mdir/stopped ]] || die "machine $name is not stopped (machine.sh stop $name first, or up to create it)"
  ip=$(cat "$mdir/ip")
  for other in $(known_machines); do
    [[ $other != "$name" && $(cat "$(machine_dir "$other")/ip" 2>/dev/null) == "$ip" ]] && holder_pid "$other" >/dev/null &&
      die "IP $ip is taken by machine $other"
  done
  local t0=$SECONDS
  boot "$name" "$ip" again
  log "machine $name started at $ip in $((SECONDS - t0))s (holder $(holder_pid "$name"))"
}

cmd_daemon() {
  local name=${1:-} label=${2:-}
  [[ -n $name && -n $label ]] || usage
  shift 2
  [[ ${1:-} == -- ]] && shift
  (($# > 0)) || usage
  [[ $label =~ ^[a-z][a-z0-9-]*$ && ! $label =~ ^(holder|containerd|supervisor|kubelet)$ ]] || die "bad daemon label '$label'"
  daemon "$name" "$label" "$@"
}

cmd_down_all() {
  local name
  for name in $(known_machines); do cmd_down "$name"; done
  ip link del "$HOST_LINK" 2>/dev/null || true
  ip netns list 2>/dev/null | grep -q "^$SWITCH_NS\b" && ip netns del "$SWITCH_NS"
  # `ip netns add` bind-mounts /run/netns on itself: undo that when no namespace is left.
  if [[ -d /run/netns ]] && [[ -z $(ls -A /run/netns) ]]; then
    umount /run/netns 2>/dev/null || true
    rmdir /run/netns 2>/dev/null || true
  fi
  [[ -d $STATE/machines ]] && rmdir "$STATE/machines" 2>/dev/null || true
  [[ -d $STATE ]] && rmdir "$STATE" 2>/dev/null || true
  log "all machines down"
}

cmd_list() {
  local name state
  for name in $(known_machines); do
    if holder_pid "$name" >/dev/null && [[ -f $(machine_dir "$name")/up ]]; then state=up
    elif [[ -f $(machine_dir "$name")/stopped ]]; then state=stopped
    else state=broken; fi
    # cluster.sh matches "NAME\tIP\tup" to the end of the line: only bare machines get a 4th column.
    [[ -f $(machine_dir "$name")/bare ]] && state+=$'\tbare'
    printf '%s\t%s\t%s\n' "$name" "$(cat "$(machine_dir "$name")/ip" 2>/dev/null || echo -)" "$state"
  done
}

cmd_status() {
  local name=${1:-} mdir what pid
  [[ -n $name ]] || usage
  mdir=$(machine_dir "$name")
  for what in holder containerd supervisor kubelet; do
    pid=$(pid_alive "$mdir/$what.pid") || pid=-
    printf '%-10s %s\n' "$what" "$pid"
  done
  if [[ -f $mdir/bare ]]; then printf '%-10s %s\n' mode bare; fi
}

# --- a real systemd inside a machine ---------------------------------------------------------
# Its own cgroup below the machine's root: the cgroup namespace systemd gets is rooted there.
SD_CGROUP=tsadm-systemd

cmd_systemd() {
  local name=${1:-} mdir hpid procs="" h i launcher sd=""
  [[ -n $name ]] || usage
  mdir=$(machine_dir "$name")
  hpid=$(holder_pid "$name") || die "machine $name is not running"
  pid_alive "$mdir/systemd.pid" >/dev/null && return 0
  for h in $(cgroup_hierarchies); do
    mkdir -p "$h/$name/$SD_CGROUP"
    if [[ -f $h/$name/$SD_CGROUP/cpuset.cpus ]]; then
      cat "$h/$name/cpuset.cpus" >"$h/$name/$SD_CGROUP/cpuset.cpus"
      cat "$h/$name/cpuset.mems" >"$h/$name/$SD_CGROUP/cpuset.mems"
    fi
    procs+=" $h/$name/$SD_CGROUP/cgroup.procs"
  done
  setsid sh -c 'for f in $1; do echo $$ >"$f"; done; shift; exec "$@"' sd "$procs" \
    nsenter -t "$hpid" -m -u -n -- unshare --pid --fork --mount --cgroup --mount-proc --propagation private -- \
    "$E2E_DIR/lib/systemd-init.sh" "$name" </dev/null >>"$mdir/logs/systemd.log" 2>&1 &
  launcher=$!
  # systemd is unshare's child (PID 1 inside); it is up once systemctl answers in its namespaces.
  for i in $(seq 1 150); do
    [[ -z $sd ]] && sd=$(pgrep -P "$launcher" | head -1 || true)
    if [[ -n $sd ]] && nsenter -t "$sd" -m -p -- systemctl is-system-running >/dev/null 2>&1; then
      echo "$sd" >"$mdir/systemd.pid"
      log "$name: systemd is PID 1 of its own namespace (host PID $sd)"
      return 0
    fi
    kill -0 "$launcher" 2>/dev/null || break
    sleep 0.2
  done
  [[ -n $sd ]] && kill -KILL "$sd" 2>/dev/null
  tail -20 "$mdir/logs/systemd.log" >&2
  die "systemd did not come up in $name; see $mdir/logs/systemd.log"
}

cmd_sd_exec() {
  local name=${1:-} mdir sd procs="" h
  [[ -n $name ]] || usage
  shift
  [[ ${1:-} == -- ]] && shift
  (($# > 0)) || usage
  mdir=$(machine_dir "$name")
  sd=$(pid_alive "$mdir/systemd.pid") || die "no systemd runs in $name (machine.sh systemd $name)"
  for h in $(cgroup_hierarchies); do
    [[ -d $h/$name/tsadm-system ]] && procs+=" $h/$name/tsadm-system/cgroup.procs"
  done
  # In the machine's cgroup (its teardown finds it), then in systemd's namespaces. No
  # TSADM_SERVICE_MANAGER: /run/systemd/system exists there, so tsadm uses systemctl.
  exec sh -c 'for f in $1; do echo $$ >"$f"; done; shift; exec "$@"' sdexec "$procs" \
    nsenter -t "$sd" -m -u -n -p -C --wd=/ -- \
    env -u TSADM_SERVICE_MANAGER PATH="$MACHINE_PATH" HOME=/root TSADM_E2E_MACHINE="$name" "$@"
}

cmd_systemd_stop() {
  local name=${1:-} mdir sd h i
  [[ -n $name ]] || usage
  mdir=$(machine_dir "$name")
  if sd=$(pid_alive "$mdir/systemd.pid"); then
    # PID 1 of a namespace: SIGKILL takes everything in that namespace with it.
    kill -KILL "$sd" 2>/dev/null || true
    for i in $(seq 1 100); do running "$sd" || break; sleep 0.1; done
  fi
  rm -f "$mdir/systemd.pid"
  for i in $(seq 1 50); do
    local left=0
    for h in $(cgroup_hierarchies); do
      [[ -d $h/$name/$SD_CGROUP ]] || continue
      find "$h/$name/$SD_CGROUP" -depth -type d -exec rmdir {} + 2>/dev/null || true
      [[ -d $h/$name/$SD_CGROUP ]] && left=1
    done
    ((left == 0)) && return 0
    sleep 0.1
  done
  die "the cgroups of $name's systemd could not be removed"
}

cmd_logs() {
  local name=${1:-} what=${2:-kubelet}
  [[ -n $name ]] || usage
  tail -n "${LINES_TO_SHOW:-50}" "$(machine_dir "$name")/logs/$what.log"
}

[[ $EUID == 0 ]] || die "machines need root"
cmd=${1:-}
shift || true
case $cmd in
  up) cmd_up "$@" ;;
  stop) cmd_stop "$@" ;;
  start) cmd_start "$@" ;;
  daemon) cmd_daemon "$@" ;;
  exec) cmd_exec "$@" ;;
  down) cmd_down "$@" ;;
  down-all) cmd_down_all ;;
  list) cmd_list ;;
  status) cmd_status "$@" ;;
  logs) cmd_logs "$@" ;;
  systemd) cmd_systemd "$@" ;;
  sd-exec) cmd_sd_exec "$@" ;;
  systemd-stop) cmd_systemd_stop "$@" ;;
  *) usage ;;
esac
