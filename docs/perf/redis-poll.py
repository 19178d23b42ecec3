#!/usr/bin/env python3
"""Redis's CPU and time inside scripts per job, drain by drain, while a command runs (docs/perf/journal.md, "Issue 18 closed").

Runs the command, reads `INFO cpu` and `INFO commandstats` of the Redis at PORT every 20 ms until it ends, and prints,
for every drain that follows an enqueue (the samples from the end of one enqueue, told by `HSETNX` calls, to the start
of the next), the jobs it enqueued and, per job: Redis's CPU (used_cpu_user + used_cpu_sys) over the samples in which
scripts ran (`EVALSHA` time grew by more than 1 ms), the time inside `EVALSHA` (commandstats: the scripts' own time,
their Redis commands included, without reading their arguments and writing their replies), and Redis's CPU over the
rest of the drain's samples (idle work, the bench between repetitions). The polling itself costs Redis about 5 ms a
second, in those quiet samples mostly. pip install redis.

  PORT=6390 python3 docs/perf/redis-poll.py java -jar delayq-cli/target/delayq.jar bench --workload w1 --reps 3 \\
      --redis redis://127.0.0.1:6390 --json
"""
import os
import subprocess
import sys
import time

import redis

r = redis.Redis(port=int(os.environ['PORT']))


def sample():
    c, s = r.info('cpu'), r.info('commandstats')
    return (time.time(), c['used_cpu_user'] + c['used_cpu_sys'], s.get('cmdstat_evalsha', {}).get('usec', 0),
            s.get('cmdstat_hsetnx', {}).get('calls', 0))


proc = subprocess.Popen(sys.argv[1:], stdout=open('redis-poll.out', 'w'), stderr=subprocess.DEVNULL)
samples = [sample()]
while proc.poll() is None:
    time.sleep(0.02)
    samples.append(sample())
samples.append(sample())

drains, enqueued, cur = [], 0, None
for a, b in zip(samples, samples[1:]):
    if b[3] > a[3]:  # an enqueue: its jobs are the next drain's
        enqueued = enqueued + b[3] - a[3] if cur is None else b[3] - a[3]
        cur = None
        continue
    if enqueued and cur is None:
        cur = {'n': enqueued, 'busy_cpu': 0.0, 'evalsha_us': 0, 'quiet_cpu': 0.0}
        drains.append(cur)
    if cur is not None:
        if b[2] - a[2] > 1000:
            cur['busy_cpu'] += b[1] - a[1]
            cur['evalsha_us'] += b[2] - a[2]
        else:
            cur['quiet_cpu'] += b[1] - a[1]
for i, d in enumerate((d for d in drains if d['n'] >= 1000), 1):  # not the bench's few-job script warm-ups
    n = d['n']
    print(f"drain {i}: {n} jobs; us a job: Redis CPU while scripts ran {1e6 * d['busy_cpu'] / n:.2f}, "
          f"in EVALSHA {d['evalsha_us'] / n:.2f}, Redis CPU in the rest of the drain {1e6 * d['quiet_cpu'] / n:.2f}")
