#!/usr/bin/env bash
# Simulator throughput and latency (wrk, loopback, bounded: 10 s per run),
# memory after 100,000 labels, and the slowest call while a benchmark's
# quotes pile up. Prints Markdown tables for BENCHMARKS.md.
#   bash tests/bench/sim.sh
set -euo pipefail
. "$(dirname "$0")/../../scripts/env"
cd "$ROOT"
command -v wrk >/dev/null || { echo "missing tool: wrk (apt-get install wrk)" >&2; exit 1; }
cargo build --quiet --profile native -p sim
tmp=$(mktemp -d); trap 'kill $sim_pid 2>/dev/null; rm -rf "$tmp"' EXIT
fresh_sim() { # stops the one running, if any
  if [ -n "${sim_pid:-}" ]; then kill "$sim_pid"; wait "$sim_pid" 2>/dev/null || true; fi
  "$CARGO_TARGET_DIR/native/sim" --addr 127.0.0.1:0 > "$tmp/out" &
  sim_pid=$!
  for _ in $(seq 50); do grep -q '^listening on' "$tmp/out" && break; sleep 0.1; done
  url=$(sed -n 's/^listening on //p' "$tmp/out")
}
fresh_sim
key_for() { curl -fsS "$url/__sim/keys" -H 'content-type: application/json' \
  -d "{\"env\":\"$1\",\"scopes\":[\"rates:read\",\"wallet:read\",\"labels:write\"],\"unlimited\":true}" | sed 's/.*"key":"\([^"]*\)".*/\1/'; }
rates_script() { # key
  cat > "$tmp/rates.lua" <<LUA
wrk.method = "POST"
wrk.body = '$body'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $1"
LUA
}
live=$(key_for live)
body='{"from_address":{"name":"Ada Shop Inc","street1":"500 Market St Suite 3","city":"San Francisco","state":"CA","zip":"94105","country":"US"},"to_address":{"name":"Grace Hopper","street1":"12 Elm St","city":"Brooklyn","state":"NY","zip":"11201","country":"US"},"parcel":{"weight_oz":20,"length":10,"width":8,"height":4}}'
rates_script "$live"
cat > "$tmp/wallet.lua" <<LUA
wrk.headers["Authorization"] = "Bearer $live"
LUA
row() { # name path script connections
  local threads=$(( $4 < 2 ? 1 : 2 ))
  local out; out=$(wrk -t"$threads" -c"$4" -d10s --latency -s "$tmp/$3" "$url$2")
  local rps p50 p99 non2xx
  rps=$(awk '/Requests\/sec/{print $2}' <<<"$out")
  p50=$(awk '$1=="50%"{print $2}' <<<"$out"); p99=$(awk '$1=="99%"{print $2}' <<<"$out")
  non2xx=$(awk '/Non-2xx/{print $NF}' <<<"$out"); non2xx=${non2xx:-0}
  echo "| $1 | $4 | $rps | $p50 | $p99 | $non2xx |"
}
echo "| request | connections | req/s | p50 | p99 | non-2xx |"
echo "|---|---|---|---|---|---|"
row "GET /v1/wallet" /v1/wallet wallet.lua 1
row "GET /v1/wallet" /v1/wallet wallet.lua 16
row "POST /v1/rates" /v1/rates rates.lua 1
row "POST /v1/rates" /v1/rates rates.lua 16

# Memory: 100,000 sandbox labels bought from one quoted rate, on a fresh simulator.
fresh_sim
echo
node tests/bench/sim-memory.mjs "$url" "$sim_pid" "$(key_for sandbox)" 100000

# Quotes kept: every quote is kept for a day, and one run of edge.mjs's direct
# way quotes about 300,000 times. Five 6-s runs of quotes on a fresh
# simulator, each with its slowest call (a pause of every call while the
# quote table grows shows there, and would land in whichever Worker's run
# is under way) and the memory after it.
fresh_sim
rates_script "$(key_for live)"
echo
echo "| run | quotes kept after it | req/s | slowest call | RSS after |"
echo "|---|---|---|---|---|"
kept=0
for run in 1 2 3 4 5; do
  out=$(wrk -t2 -c16 -d6s -s "$tmp/rates.lua" "$url/v1/rates")
  kept=$(( kept + $(awk '/requests in/{print $1}' <<<"$out") ))
  echo "| $run | $kept | $(awk '/Requests\/sec/{print $2}' <<<"$out") | $(awk '$1=="Latency"{print $4}' <<<"$out") | $(awk '/VmRSS/{printf "%d MiB", $2/1024}' "/proc/$sim_pid/status") |"
done
