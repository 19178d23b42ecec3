#!/usr/bin/env bash
# W1 side by side with BullMQ, like for like (docs/perf/journal.md, "Like for like with BullMQ, and warm-up repetitions").
#
# Starts a private redis-server on a free loopback port (never 6379) and alternates, for ROUNDS rounds (order reversed
# every other round), four runs on it:
#   d0  delayq bench --workload w1 --reps 3 --done-retention 0s   (each job deleted as it completes)
#   b0  node bullmq-w1.mjs --reps 3                                 (removeOnComplete: true)
#   d1  delayq bench --workload w1 --reps 3                         (completed jobs kept 1 h, delayq's default)
#   b1  node bullmq-w1.mjs --reps 3 --keep-completed                (kept, BullMQ's default)
# Prints one line per run (BullMQ: per repetition): "<round> <run> <json>", then the per-round ratios of W1 drain
# (delayq's median of 3 over BullMQ's median of 3) for "delete" (d0/b0), "keep" (d1/b1) and "mixed" (d1/b0).
#
#   (cd docs/peers && npm install)                                    # or PEERS=/a/copy/of/docs/peers after npm install there
#   docs/perf/side-by-side.sh delayq-bench/target/delayq-bench.jar [ROUNDS]   # ROUNDS: default 5 (the harness jar: ./delayq bench builds it)
set -euo pipefail
JAR=$(realpath "$1")
ROUNDS=${2:-5}
PEERS=${PEERS:-$(cd "$(dirname "$0")/../peers" && pwd)}  # or a copy of docs/peers with its node_modules
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
OUT=$(mktemp)
redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes --logfile "$OUT.redis.log"
trap 'redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1 || true; rm -f "$OUT" "$OUT.redis.log"' EXIT
until redis-cli -p "$PORT" ping >/dev/null 2>&1; do sleep 0.1; done
URI=redis://127.0.0.1:$PORT
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then order="d0 b0 d1 b1"; else order="b1 d1 b0 d0"; fi
  for x in $order; do
    case $x in
      d0) java -jar "$JAR" bench --workload w1 --reps 3 --json --no-progress --redis "$URI" --done-retention 0s | grep '^{' ;;
      d1) java -jar "$JAR" bench --workload w1 --reps 3 --json --no-progress --redis "$URI" | grep '^{' ;;
      b0) (cd "$PEERS" && node bullmq-w1.mjs --redis "$URI" --reps 3) ;;
      b1) (cd "$PEERS" && node bullmq-w1.mjs --redis "$URI" --reps 3 --keep-completed) ;;
    esac | sed "s/^/$r $x /" | tee -a "$OUT"
  done
done
python3 - "$OUT" <<'PY'
import collections, json, statistics, sys
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    r, run, js = line.split(' ', 2)
    d = json.loads(js)
    if 'warmup' in d:
        print('a BullMQ warm-up repetition lost or repeated jobs:', js.strip())
        continue
    rows[int(r)][run].append(d['drain_jobs_per_s'])
for name, (a, b) in {'delete': ('d0', 'b0'), 'keep': ('d1', 'b1'), 'mixed': ('d1', 'b0')}.items():
    ratios = [statistics.median(rows[r][a]) / statistics.median(rows[r][b]) for r in sorted(rows)]
    print(f"{name}: per-round ratios {', '.join(f'{x:.2f}' for x in ratios)}; median {statistics.median(ratios):.2f}")
PY
