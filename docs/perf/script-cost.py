#!/usr/bin/env python3
"""Redis CPU of claim.lua and complete.lua alone, per job (BENCHMARKS.md, "Where the time goes", Redis side).

Starts a private redis-server (a free port, never 6379), seeds N due jobs of PAY payload bytes (fresh records as
enqueue.lua writes them), claims them all in calls of B jobs, then completes them all in calls of B, and prints
Redis's own CPU (INFO cpu, user + sys) and the time inside EVALSHA (INFO commandstats) per job for each phase.
No JVM is involved, so the figure is the scripts' alone.

  pip install redis
  python3 docs/perf/script-cost.py [LUA_DIR]       # LUA_DIR: delayq-core/src/main/resources/dev/delayq/lua
  N=5000 PAY=10240 REPS=3 python3 docs/perf/script-cost.py
  RET=3600000 python3 docs/perf/script-cost.py    # completions keep the done record (the client's default, 1 h)

Compare two versions by pointing LUA_DIR at two checkouts, alternating the runs.
"""
import os
import re
import socket
import subprocess
import sys
import time

import redis

LUA = sys.argv[1] if len(sys.argv) > 1 else 'delayq-core/src/main/resources/dev/delayq/lua'
N = int(os.environ.get('N', 20000))
B = int(os.environ.get('B', 100))
PAY = int(os.environ.get('PAY', 100))
REPS = int(os.environ.get('REPS', 3))
RET = int(os.environ.get('RET', 0))  # complete's done retention ms: 0 deletes each record, > 0 keeps it as done


def expand(name):
    text = open(f'{LUA}/{name}.lua').read()
    return re.sub(r'(?m)^-- @include (\w+)\s*$', lambda m: open(f'{LUA}/includes/{m.group(1)}.lua').read(), text)


s = socket.socket()
s.bind(('127.0.0.1', 0))
port = s.getsockname()[1]
s.close()
server = subprocess.Popen(['redis-server', '--port', str(port), '--save', '', '--appendonly', 'no'],
                          stdout=subprocess.DEVNULL)
time.sleep(0.4)
r = redis.Redis(port=port)


def cpu():
    i = r.info('cpu')
    return i['used_cpu_user'] + i['used_cpu_sys']


def in_scripts():
    return r.info('commandstats').get('cmdstat_evalsha', {}).get('usec', 0)


Q = 'dq:{q}:'
CLAIM_KEYS = [Q + k for k in ('due', 'leases', 'jobs', 'meta', 'dead', 'dedupe', 'dedupe:holds', 'history', 'due:prio',
                              'events', 'rate', 'progress')]
COMPLETE_KEYS = [Q + k for k in ('leases', 'jobs', 'done', 'meta', 'dedupe', 'dedupe:holds', 'history', 'dead', 'events',
                                 'progress')]
# Fresh scheduled records (flags: scheduled + created; seq; created; payload) and their due-set members.
SEED = '''
local n, pay = tonumber(ARGV[1]), ARGV[2]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 - 1000
local function v(x) local s = '' while x >= 128 do local l = x % 128 s = s .. string.char(l + 128) x = (x - l) / 128 end return s .. string.char(x) end
for i = 1, n do
  local id = 'job-' .. i
  redis.call('HSET', KEYS[1], id, string.char(65) .. v(i) .. v(200000000) .. pay)
  redis.call('ZADD', KEYS[2], now, string.char(0, 0, 0, math.floor(i / 65536) % 256, math.floor(i / 256) % 256, i % 256) .. id)
end
redis.call('HSET', KEYS[3], 'seq', n)
'''


def claim_args(n):
    # max, lease ms, lookahead ms, recover limit, backoff base, cap, seed, channel, max stalls, worker, stand-by, bytes
    return [n, 30000, 50, 10, 1000, 60000, 1, 'ch', 100, 'w', 500, 8 << 20]


def run():
    r.flushall()
    r.eval(SEED, 3, Q + 'jobs', Q + 'due', Q + 'meta', N, 'x' * PAY)
    claim = r.register_script(expand('claim'))
    complete = r.register_script(expand('complete'))
    claim(keys=CLAIM_KEYS, args=claim_args(0))  # loads the script
    ids = []
    c0, s0 = cpu(), in_scripts()
    while True:
        got = claim(keys=CLAIM_KEYS, args=claim_args(B))[10:]
        if not got:
            break
        ids += got[0::2]
    c1, s1 = cpu(), in_scripts()
    for i in range(0, len(ids), B):  # a fresh queue: the i-th job claimed holds token i + 1
        args = [RET, 'ch']
        for j in range(i, min(i + B, len(ids))):
            args += [ids[j], j + 1]
        assert all(code == 1 for code in complete(keys=COMPLETE_KEYS, args=args))
    c2, s2 = cpu(), in_scripts()
    assert r.hlen(Q + 'jobs') == (N if RET else 0)
    print(f'{len(ids)} jobs of {PAY} B in calls of {B}: claim {1e6 * (c1 - c0) / N:.2f} us CPU/job '
          f'({(s1 - s0) / N:.2f} us in EVALSHA), complete {1e6 * (c2 - c1) / N:.2f} us CPU/job '
          f'({(s2 - s1) / N:.2f} us in EVALSHA)', flush=True)


try:
    for _ in range(REPS):
        run()
finally:
    server.terminate()
