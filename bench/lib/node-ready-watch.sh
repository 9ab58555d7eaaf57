#!/usr/bin/env bash
# Runs inside a control-plane harness machine (bench/limits.mjs). Usage: node-ready-watch.sh NODE
# Polls every 100 ms (for at most 180 s) until Node NODE exists ("registered <epoch>") and its
# Ready condition is True ("ready <epoch>"); prints "t0 <epoch>" first.
set -u
node=$1
now() { date +%s.%N; }
echo "t0 $(now)"
registered=""
deadline=$((SECONDS + 180))
while ((SECONDS < deadline)); do
  if s=$(kubectl --kubeconfig /etc/kubernetes/admin.conf get node "$node" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null); then
    [[ -n $registered ]] || { registered=$(now); echo "registered $registered"; }
    [[ $s == True ]] && { echo "ready $(now)"; break; }
  fi
  sleep 0.1
done
