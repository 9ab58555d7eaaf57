# shellcheck shell=bash disable=SC2034
# (SC2034: the variables here are used by the scripts that source this file.)
# Shared settings and helpers of the e2e scripts. Sourced, never run.
#
# Environment knobs:
#   TSADM_CACHE_DIR       provisioned binaries and images (default /var/cache/tsadm)
#   TSADM_E2E_STATE_DIR   per-machine state: pidfiles, logs, real-disk dirs (default /var/lib/tsadm-e2e)
#   TSADM_E2E_HOST_LINK   1 (default): give the host 10.250.0.1 on the machines' switch so host tools
#                         (kubectl) reach the machines; 0: the host gets no route to them

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO_ROOT=$(cd "$E2E_DIR/../.." && pwd)
K8S_VERSION=v1.20.2
CACHE=${TSADM_CACHE_DIR:-/var/cache/tsadm}
BIN_DIR=$CACHE/kubernetes-$K8S_VERSION/bin
IMG_DIR=$CACHE/images-$K8S_VERSION
STATE=${TSADM_E2E_STATE_DIR:-/var/lib/tsadm-e2e}
IMAGE_REPO=registry.local/k8s

# Network: every machine sits on one bridge inside a private "switch" namespace. No default route
# anywhere, so nothing can leave the machine; the optional host link only reaches 10.250.0.0/24.
NET_PREFIX=10.250.0
SWITCH_NS=tsadm-switch
BRIDGE=br0
HOST_LINK=tsadm-host
HOST_LINK_PEER=host0
HOST_IP=$NET_PREFIX.1
POD_CIDR=10.244.0.0/16
SERVICE_CIDR=10.96.0.0/12

# Inside a machine: its private /run holds the control files of the machine's own "init".
MACHINE_RUN=/run/tsadm-machine

T_START=${T_START:-$(date +%s)}
log() { printf '[%s %4ds] %s\n' "${LOG_TAG:-e2e}" "$(($(date +%s) - T_START))" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

machine_dir() { echo "$STATE/machines/$1"; }
netns_of() { echo "tsadm-$1"; }

# Names become hostnames, node names, netns names (tsadm-NAME) and veth names (v-NAME, <= 15 chars).
validate_name() {
  [[ $1 =~ ^[a-z][a-z0-9-]{0,11}$ && $1 != switch ]] || die "bad machine name '$1' (lowercase, <= 12 chars)"
}

validate_ip() {
  [[ $1 =~ ^10\.250\.0\.([0-9]{1,3})$ ]] && ((BASH_REMATCH[1] >= 2 && BASH_REMATCH[1] <= 254)) ||
    die "bad machine IP '$1' (must be 10.250.0.2 .. 10.250.0.254)"
}

# pid_alive PIDFILE: prints the PID and succeeds when the file names a live process.
pid_alive() {
  local pid
  [[ -s $1 ]] || return 1
  pid=$(<"$1")
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# The mounted cgroup hierarchies (v1 controllers, name=systemd, and the v2 "unified" one).
cgroup_hierarchies() {
  awk '$3 == "cgroup" || $3 == "cgroup2" { print $2 }' /proc/self/mounts | sort -u
}

# The machine's binaries for kubelet and friends, and a PATH that prefers them (also systemd's
# default PATH for services: containerd, its shims and the kubelet get it).
MACHINE_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Bare machines (machine.sh up --bare): the kubelet "unit" as systemd finds it. Unit file: the first of
# these dirs that has kubelet.service; kubeadm's drop-in: kubelet.service.d/10-kubeadm.conf in
# /etc/systemd/system or next to the unit; enabled: the multi-user.target.wants link exists.
KUBELET_UNIT_DIRS=(/etc/systemd/system /lib/systemd/system /usr/lib/systemd/system)
KUBELET_WANTS_LINK=/etc/systemd/system/multi-user.target.wants/kubelet.service

# kubelet_unit_file: prints the path of the kubelet's unit file; fails when there is none.
kubelet_unit_file() {
  local d
  for d in "${KUBELET_UNIT_DIRS[@]}"; do
    [[ -f $d/kubelet.service ]] && { echo "$d/kubelet.service"; return 0; }
  done
  return 1
}

# kubelet_dropin UNIT_FILE: prints the path of kubeadm's drop-in for it; fails when there is none.
kubelet_dropin() {
  local f
  for f in /etc/systemd/system/kubelet.service.d/10-kubeadm.conf "$(dirname "$1")/kubelet.service.d/10-kubeadm.conf"; do
    [[ -f $f ]] && { echo "$f"; return 0; }
  done
  return 1
}
