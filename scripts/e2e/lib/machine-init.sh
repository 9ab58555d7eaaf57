#!/usr/bin/env bash
# The "init" of one e2e machine. machine.sh starts it as
#   nsenter --net=/run/netns/tsadm-NAME unshare --mount --uts --propagation private -- machine-init.sh NAME IP
# so it runs in the machine's network namespace and a fresh mount + UTS namespace. It builds the
# machine's filesystem view, writes `ready` into the machine dir, and then just holds the namespaces
# (every other process of the machine enters them with `nsenter -t <this pid> -m -u -n`).
#
# A bare machine (file `bare` in the machine dir: machine.sh up --bare) gets the OS as Debian's
# packages left it, for tsadm's host phase to prepare: no ip_forward / bridge-nf-call-iptables
# settings, Debian's own /etc/containerd/config.toml, no kubelet/kubeadm/kubectl on PATH; instead of
# restrict_oom_score_adj, a runc wrapper (runc-wrapper.sh) stands in for the missing
# CAP_SYS_RESOURCE; the kubelet starts at boot only when its unit is enabled.
set -euo pipefail
NAME=$1 IP=$2
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
LOG_TAG="init $NAME"
MDIR=$(machine_dir "$NAME")
BARE=0
[[ -f $MDIR/bare ]] && BARE=1

# Nothing mounted here may reach the host.
mount --make-rprivate /
hostname "$NAME"

# A private /run (containerd state and sockets, runc, kubelet's /var/run): it vanishes with the
# namespace, as /run does when a real machine powers off.
mount -t tmpfs -o mode=0755,size=4g tsadm-run /run
mkdir -p "$MACHINE_RUN"/{stash,sysctl,kubelet}
# The overlay upper dirs (the machine's own /etc, /usr, /var, /root changes) are its "disk": on the
# host's disk under the machine dir, so `machine.sh stop` + `start` boot the machine again from
# what it had written (the mounts themselves live in the machine's namespace and vanish with it).
# Bound under /run first: once /var is overlaid, a path under the machine dir would be on that
# overlay, which the kernel refuses as an upper dir.
mkdir -p "$MDIR/disk/ovl" "$MACHINE_RUN/ovl"
mount --bind "$MDIR/disk/ovl" "$MACHINE_RUN/ovl"
OVL=$MACHINE_RUN/ovl
# A first boot: the disk has no /usr changes yet.
FRESH_DISK=0
[[ -d $OVL/usr/upper ]] || FRESH_DISK=1

# Host directories this machine must see *as they are on the host* (not through an overlay),
# stashed before /etc, /usr and /var are overlaid, bound back afterwards at the same paths: the
# machine dir (pidfiles, logs, real-disk data), the repository, and the provisioning cache.
SHARES=("$MDIR" "$REPO_ROOT" "$CACHE")
for i in "${!SHARES[@]}"; do
  mkdir -p "$MACHINE_RUN/stash/$i"
  mount --bind "${SHARES[$i]}" "$MACHINE_RUN/stash/$i"
done

# Writable copies of the host's system dirs: /etc/kubernetes, /etc/cni, /var/log/pods,
# /usr/libexec/kubernetes, root's ~/.kube ... stay inside the machine.
for d in etc usr var root; do
  mkdir -p "$OVL/$d/upper" "$OVL/$d/work"
  mount -t overlay "tsadm-$d" -o "lowerdir=/$d,upperdir=$OVL/$d/upper,workdir=$OVL/$d/work" "/$d"
done
mount -t tmpfs -o mode=1777,size=1g tsadm-tmp /tmp

for i in "${!SHARES[@]}"; do
  mkdir -p "${SHARES[$i]}"
  mount --bind "$MACHINE_RUN/stash/$i" "${SHARES[$i]}"
  umount "$MACHINE_RUN/stash/$i"
done

# Real-disk dirs where overlay/tmpfs would not do: cadvisor dislikes overlay for the kubelet dir,
# etcd wants a real disk, and containerd's overlayfs snapshotter cannot stack on an overlay.
for d in kubelet etcd containerd; do
  mkdir -p "$MDIR/disk/$d" "/var/lib/$d"
  mount --bind "$MDIR/disk/$d" "/var/lib/$d"
done

# A sysfs of this network namespace (kubelet and CNI read /sys/class/net), with the host's cgroup
# tree moved back in.
mkdir -p "$MACHINE_RUN/cgroup"
mount --move /sys/fs/cgroup "$MACHINE_RUN/cgroup"
mount -t sysfs tsadm-sysfs /sys
mount --move "$MACHINE_RUN/cgroup" /sys/fs/cgroup

# The kubelet sets these host-wide sysctls when they differ from what it wants: give it files
# that already hold its values, so the host's are never rewritten.
for kv in vm/overcommit_memory=1 vm/panic_on_oom=0 kernel/panic=10 kernel/panic_on_oops=1; do
  f=$MACHINE_RUN/sysctl/${kv%%=*}
  mkdir -p "$(dirname "$f")"
  echo "${kv#*=}" >"$f"
  mount --bind "$f" "/proc/sys/${kv%%=*}"
done
# These are per network namespace, so setting them here touches only this machine. A bare machine
# keeps a new namespace's defaults (on this kernel: ip_forward 0, bridge-nf-call-iptables 1).
if ((BARE)); then
  log "bare: net.ipv4.ip_forward=$(cat /proc/sys/net/ipv4/ip_forward)" \
    "net.bridge.bridge-nf-call-iptables=$(cat /proc/sys/net/bridge/bridge-nf-call-iptables 2>/dev/null || echo absent)"
else
  echo 1 >/proc/sys/net/ipv4/ip_forward
  echo 1 >/proc/sys/net/bridge/bridge-nf-call-iptables 2>/dev/null || log "warning: no bridge-nf-call-iptables"
fi

printf '127.0.0.1\tlocalhost\n%s\t%s\n' "$IP" "$NAME" >/etc/hosts
# No DNS server is reachable from a machine: point lookups at loopback so they fail at once,
# inside the machine (e.g. containerd trying to pull the CoreDNS image from registry.local).
rm -f /etc/resolv.conf
printf '# tsadm e2e machine: no DNS here\nnameserver 127.0.0.1\n' >/etc/resolv.conf
mkdir -p /etc/kubernetes/manifests

if ((BARE)); then
  # No Kubernetes binaries: on the first boot, hide any the host has on PATH (e.g. a kubectl in
  # /usr/bin). rm in the /usr overlay leaves a whiteout on the machine's disk, never touches the host.
  if ((FRESH_DISK)); then
    IFS=: read -ra path_dirs <<<"$MACHINE_PATH"
    for d in "${path_dirs[@]}"; do
      d=$(readlink -f "$d") || continue
      for b in kubelet kubeadm kubectl; do
        [[ -e $d/$b || -L $d/$b ]] || continue
        case $d/ in
          /usr/*) rm -f "$d/$b" && log "bare: hid the host's $d/$b" ;;
          *) log "warning: bare: $d/$b is not on an overlay; left alone" ;;
        esac
      done
    done
  fi
  # Debian's config.toml stays as packaged (no certs.d either); runc gets the oom_score_adj clamp
  # instead, from a wrapper found before /usr/sbin/runc on containerd's PATH (MACHINE_PATH).
  install -D -m 0755 "$E2E_DIR/lib/runc-wrapper.sh" /usr/local/sbin/runc
else
# The node's tools: the provisioned Kubernetes binaries, found first on the machine's PATH.
for b in kubelet kubeadm kubectl; do ln -sfn "$BIN_DIR/$b" "/usr/local/bin/$b"; done

# containerd as the doc found to work here: own state under the private /run,
# restrict_oom_score_adj (no CAP_SYS_RESOURCE in this VM), runc v2 with cgroupfs.
mkdir -p /etc/containerd
cat >/etc/containerd/config.toml <<EOF
version = 2
root = "/var/lib/containerd"
state = "/run/containerd"

[grpc]
  address = "/run/containerd/containerd.sock"

[plugins."io.containerd.internal.v1.opt"]
  path = "/var/lib/containerd/opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$IMAGE_REPO/pause:3.2"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "/etc/cni/net.d"
  # Per-registry hosts.toml files (none by default: nothing changes); the images e2e test adds
  # one for its plain-HTTP registry on the machine's loopback.
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "/etc/containerd/certs.d"
EOF
mkdir -p /etc/containerd/certs.d
fi # BARE

# Pod network: a bridge with one /24 of 10.244.0.0/16 per machine (the IP's last octet), enough for
# Ready nodes and pods on each node; cross-node pod routes are added by machine.sh.
octet=${IP##*.}
mkdir -p /etc/cni/net.d
cat >/etc/cni/net.d/10-tsadm-bridge.conflist <<EOF
{
  "cniVersion": "0.4.0",
  "name": "tsadm-e2e",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "isGateway": true,
      "ipMasq": true,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{ "subnet": "10.244.$octet.0/24" }]],
        "routes": [{ "dst": "0.0.0.0/0" }]
      }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
EOF

cat >"$MACHINE_RUN/env" <<EOF
NAME=$NAME
IP=$IP
MDIR=$MDIR
E2E_DIR=$E2E_DIR
BARE=$BARE
EOF
# The kubelet at boot: on a bare machine only when its unit is enabled (as systemd does).
if ((BARE)) && [[ ! -e $KUBELET_WANTS_LINK && ! -L $KUBELET_WANTS_LINK ]]; then
  echo stopped >"$MACHINE_RUN/kubelet/want"
else
  echo running >"$MACHINE_RUN/kubelet/want"
fi

touch "$MDIR/ready"
log "ready"
# A recognisable name in ps for the holder (leftover checks look for it).
exec -a "tsadm-holder-$NAME" sleep infinity
