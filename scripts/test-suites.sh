#!/usr/bin/env bash
# `npm test`'s last step: the unit and e2e jest projects at the same time.
#
# Why at once: the e2e project spends most of its ~40 minutes waiting on real components (kubelet,
# etcd and kube-apiserver starting inside harness machines; measured at ~20% of this 2-core
# machine's CPU), so the unit project's ~10 minutes fit alongside it instead of after it
# (BENCHMARKS.md, "Test suite duration"). The two share nothing that one could break for the
# other: unit tests use temp dirs and loopback oracles outside any machine; e2e tests use the
# harness's network namespaces; both sea tests build dist/tsadm, which scripts/build-sea.mjs
# renames into place. The e2e project itself runs two files at a time (scripts/e2e/README.md,
# "Two files at a time").
#
# The e2e output streams as it comes; the unit project's output is kept in a file and printed
# whole the moment that project ends, so the two never interleave line by line. The exit status
# is non-zero when either failed; an interrupt stops both.
set -uo pipefail
cd "$(dirname "$0")/.."

unit_log=$(mktemp -t tsadm-unit-XXXXXX.log)
# In its own process group (setsid), so an interrupt can stop jest and its workers with it.
UNIT_LOG=$unit_log setsid bash -c '
  npm run --silent test:unit >"$UNIT_LOG" 2>&1
  rc=$?
  { echo; echo "==== unit project (ran alongside e2e): exit $rc ===="; cat "$UNIT_LOG"; echo "==== end of unit project ===="; echo; } >&2
  exit "$rc"
' &
unit_pid=$!
stop() { kill -- "-$unit_pid" 2>/dev/null; rm -f "$unit_log" "${e2e_log:-}"; exit 130; }
trap stop INT TERM

e2e_log=$(mktemp -t tsadm-e2e-XXXXXX.log)
npm run --silent test:e2e 2>&1 | tee "$e2e_log"
e2e_rc=${PIPESTATUS[0]}
wait "$unit_pid"
unit_rc=$?

# The failures of both projects once more, last: a CI log shown by its head and tail would
# otherwise hide the unit project's failures in the middle. Jest's "● Console" blocks are output,
# not failures.
failures() {
  awk '/^  ● / { on = ($0 !~ /^  ● Console/); n = 0 } on && n < 14 { print; n++ }' "$2" | head -n 150 |
    sed "s/^/[$1] /"
}
if (( unit_rc != 0 || e2e_rc != 0 )); then
  { echo; echo "==== failed tests (first lines of each) ===="; failures unit "$unit_log"; failures e2e "$e2e_log"; } >&2
fi
rm -f "$unit_log" "$e2e_log"
echo "unit project: exit $unit_rc; e2e project: exit $e2e_rc" >&2
(( unit_rc == 0 && e2e_rc == 0 ))
