#!/usr/bin/env bash
# runc for bare e2e machines: machine-init.sh installs this as the machine's /usr/local/sbin/runc,
# which containerd's runc shim finds before /usr/sbin/runc on the PATH it inherits (MACHINE_PATH).
#
# Why: this VM withholds CAP_SYS_RESOURCE, so runc cannot lower a container's oom_score_adj below
# its own (the kubelet asks -998 for pod sandboxes, -997 for static pods): `runc create` fails with
# "permission denied". Normal machines set containerd's CRI `restrict_oom_score_adj = true`; a bare
# machine keeps Debian's packaged config.toml (tsadm's host phase must not be helped), so the clamp
# happens here instead, and for every client (CRI or ctr): for `create` and `run`, a negative
# "oomScoreAdj" in the bundle's config.json becomes 0 — what restrict_oom_score_adj does (never
# below containerd's own score, 0 here). Then the real runc runs with the same arguments.
set -u
REAL_RUNC=/usr/sbin/runc
args=("$@")

# The command: the first word after runc's global options (these five take a separate value).
i=0 cmd=""
while ((i < ${#args[@]})); do
  case ${args[i]} in
    --root | --log | --log-format | --criu | --rootless) i=$((i + 2)) ;;
    -*) i=$((i + 1)) ;;
    *) cmd=${args[i]}; break ;;
  esac
done

if [[ $cmd == create || $cmd == run ]]; then
  # The bundle: --bundle X, -b X, --bundle=X (or -b=X); runc's default is the current directory.
  bundle=.
  for ((j = i + 1; j < ${#args[@]}; j++)); do
    case ${args[j]} in
      --bundle | -b) bundle=${args[j + 1]:-.}; j=$((j + 1)) ;;
      --bundle=* | -b=*) bundle=${args[j]#*=} ;;
    esac
  done
  config=$bundle/config.json
  # "oomScoreAdj":-998 -> "oomScoreAdj":0 (sed has no \10: that is group 1, then a 0).
  if [[ -f $config ]] && grep -Eq '"oomScoreAdj"[[:space:]]*:[[:space:]]*-[0-9]' "$config"; then
    sed -Ei 's/("oomScoreAdj"[[:space:]]*:[[:space:]]*)-[0-9]+/\10/g' "$config"
  fi
fi
exec "$REAL_RUNC" "$@"
