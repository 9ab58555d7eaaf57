#!/usr/bin/env bash
# Runs as the first program inside a machine's namespaces (machine.sh exec/daemon):
#   enter.sh NAME CMD...
# Puts itself into the machine's cgroup (so teardown finds every process of the machine, whatever
# it forked), sets the machine's environment, and execs CMD.
set -euo pipefail
NAME=$1
shift
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

for h in $(cgroup_hierarchies); do
  [[ -d $h/$NAME/tsadm-system ]] && echo $$ >"$h/$NAME/tsadm-system/cgroup.procs"
done

export PATH=$MACHINE_PATH HOME=/root
# The restart seam: tsadm manages the kubelet "unit" through this program when systemd is absent.
export TSADM_SERVICE_MANAGER=$E2E_DIR/service-manager.sh
export TSADM_E2E_MACHINE=$NAME
# machine.sh exec keeps the caller's working directory when the machine has it (the repo does).
cd "${TSADM_E2E_CWD:-/}" 2>/dev/null || cd /
unset TSADM_E2E_CWD
exec "$@"
