#!/usr/bin/env bash
# A real systemd inside an e2e machine, so tsadm's timers and services run under the init system
# they are written for. machine.sh starts it as
#   nsenter -t <holder> -m -u -n  (the machine's namespaces), in the machine's cgroup
#   unshare --pid --fork --mount --cgroup --mount-proc --propagation private -- systemd-init.sh NAME
# so systemd is PID 1 of a PID namespace of its own, with its own mount and cgroup namespaces.
#
# What keeps it from touching the host (learnt the hard way: a systemd that can see Debian's units
# starts sysinit.target on the first service, whose systemd-tmpfiles-setup empties /tmp):
# - it knows only two unit directories: /etc/systemd/system (the machine's private overlay, where
#   tsadm writes its units) and a directory of empty targets below; none of /lib/systemd/system,
#   so no udev, journald, tmpfiles, sysctl or module loading exists for it to start;
# - no generators run (fstab and friends);
# - `container=` is set, systemd's signal that it is not the machine's kernel-level init;
# - the cgroup hierarchies are mounted again inside its cgroup namespace, so the hierarchy root it
#   sees is the machine's cgroup and everything it creates stays below it (the machine's teardown
#   finds and kills it there, and removes those cgroups with the machine's);
# - /run/systemd is a tmpfs of its own; the rest of the machine's /run (containerd's socket) stays.
set -euo pipefail
NAME=$1
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
LOG_TAG="systemd $NAME"

# Cgroups: a fresh tmpfs with every hierarchy mounted again (inside the cgroup namespace a mount
# shows the namespace's root, i.e. this machine's cgroup).
HIERARCHIES=$(awk '$3 == "cgroup" || $3 == "cgroup2" { print $2, $3, $4 }' /proc/self/mounts)
mount -t tmpfs -o mode=0755 tsadm-cgroup /sys/fs/cgroup
while read -r mnt fstype opts; do
  mkdir -p "$mnt"
  if [[ $fstype == cgroup2 ]]; then
    mount -t cgroup2 cgroup2 "$mnt"
  else
    # The controller options (cpu, memory, name=systemd, …) without the generic mount flags.
    mount -t cgroup -o "$(tr ',' '\n' <<<"$opts" | grep -vxE 'rw|ro|relatime|noatime|nosuid|nodev|noexec' | paste -sd, -)" cgroup "$mnt"
  fi
done <<<"$HIERARCHIES"

mkdir -p /run/systemd
mount -t tmpfs -o mode=0755 tsadm-systemd /run/systemd
UNITS=/run/systemd/tsadm-units
EMPTY=/run/systemd/tsadm-none
mkdir -p "$UNITS" "$EMPTY"
# The targets and the slice that default dependencies of services and timers name; empty.
for t in sysinit basic shutdown timers sockets paths slices local-fs network network-online multi-user tsadm-machine; do
  printf '[Unit]\nDescription=%s (e2e stand-in)\nDefaultDependencies=no\n' "$t.target" >"$UNITS/$t.target"
done
printf '[Unit]\nDescription=System Slice (e2e stand-in)\nDefaultDependencies=no\n' >"$UNITS/system.slice"
# The machine-level target pulls in what tsadm enabled (timers.target.wants, multi-user.target.wants).
printf 'Wants=timers.target multi-user.target\n' >>"$UNITS/tsadm-machine.target"

# systemd logs to /dev/console: here, the machine's systemd.log (this script's stdout).
mount --bind "$(readlink -f "/proc/$$/fd/1")" /dev/console

export container=tsadm-e2e
export SYSTEMD_UNIT_PATH=/etc/systemd/system:$UNITS
export SYSTEMD_GENERATOR_PATH=$EMPTY SYSTEMD_ENVIRONMENT_GENERATOR_PATH=$EMPTY
log "booting systemd (unit path $SYSTEMD_UNIT_PATH)"
exec /lib/systemd/systemd --system --unit=tsadm-machine.target --log-target=console --log-level=info
