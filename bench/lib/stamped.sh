#!/usr/bin/env bash
# Runs inside a harness machine (bench/cluster.mjs). Usage: stamped.sh CMD [ARGS…]
# Runs CMD under GNU time and prints, in this order:
#   start <epoch>                 just before CMD starts
#   <epoch> <line>                every line CMD writes (stdout and stderr), as it arrives
#   end <epoch> <exit code>       when CMD has exited
#   time <wall s> <user s> <sys s> <max RSS KB>   GNU time's figures for CMD's process tree
# The per-line stamps are what the bench's waterfall is built from: the same method for both tools.
set -u
t=$(mktemp)
trap 'rm -f "$t"' EXIT
echo "start $(date +%s.%N)"
/usr/bin/time -o "$t" -f '%e %U %S %M' "$@" 2>&1 | while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done
rc=${PIPESTATUS[0]}
echo "end $(date +%s.%N) $rc"
echo "time $(tail -1 "$t")"
exit "$rc"
