#!/usr/bin/env bash
# Runs inside a control-plane harness machine (bench/cluster.mjs). Usage: nodes-watch.sh NODE…
# Polls every 100 ms (for at most 240 s) until every NODE exists and is Ready; prints "t0 <epoch>"
# first, then "registered NODE <epoch>" and "ready NODE <epoch>" as each is first seen so.
set -u
kubectl_() { kubectl --kubeconfig /etc/kubernetes/admin.conf "$@"; }
now() { date +%s.%N; }
echo "t0 $(now)"
declare -A registered=() ready=()
deadline=$((SECONDS + 240))
while ((SECONDS < deadline && ${#ready[@]} < $#)); do
  # One request for all nodes: NAME READY-STATUS per line.
  while read -r name status; do
    [[ -n $name ]] || continue
    for want in "$@"; do
      [[ $name == "$want" ]] || continue
      [[ -n ${registered[$name]:-} ]] || { registered[$name]=1; echo "registered $name $(now)"; }
      [[ $status == True && -z ${ready[$name]:-} ]] && { ready[$name]=1; echo "ready $name $(now)"; }
    done
  done < <(kubectl_ get nodes -o 'jsonpath={range .items[*]}{.metadata.name} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' 2>/dev/null)
  sleep 0.1
done
