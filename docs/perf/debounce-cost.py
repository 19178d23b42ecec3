#!/usr/bin/env python3
"""Redis instructions of enqueue.lua per job for dedupe keys: a job created with a key (throttle, the baseline), the
same job enqueued again in throttle mode (a duplicate), and in debounce mode (a replace: docs/jobs.md, "Debounce").

Starts a private redis-server under valgrind's callgrind (a free port, never 6379), enqueues N jobs with N distinct
dedupe keys in calls of B, then each phase enqueues N jobs again with the same keys, and prints the instructions Redis
executed per job in each phase (as docs/perf/script-cost.py does with INSTR=1; see its header).

  INSTR=1 N=5000 python3 docs/perf/debounce-cost.py [LUA_DIR]
"""
import os
import sys

LUA = sys.argv[1] if len(sys.argv) > 1 else 'delayq-core/src/main/resources/dev/delayq/lua'
N = int(os.environ.get('N', 5000))
B = int(os.environ.get('B', 100))
PAY = int(os.environ.get('PAY', 100))


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import luascripts  # noqa: E402  (the scripts as Script.java sends them; the private server)

redis_server = luascripts.Server(True, prefix='debounce-cost-')
server, r, instructions = redis_server.process, redis_server.redis, redis_server.instructions


def expand(name):
    return luascripts.expand(LUA, name)


Q = 'dq:{q}:'
KEYS = [Q + k for k in ('jobs', 'due', 'meta', 'dedupe', 'dedupe:holds', 'history', 'due:prio', 'events')]
THROTTLE = '0\0\0\0{key}\0003600000\0\0'
DEBOUNCE = '0\0\0\0{key}\0\0\0\0\0\0mode=debounce'
try:
    enqueue = r.register_script(expand('enqueue'))
    enqueue(keys=KEYS, args=['ch', 1, 'warm-up', 'x', 'd3600000', ''])
    r.delete(*KEYS)

    def phase(name, prefix, options, expect):
        instructions('before-' + name)
        for i in range(0, N, B):
            args = ['ch', min(B, N - i)]
            for j in range(i, min(i + B, N)):
                args += [f'{prefix}-{j}', 'x' * PAY, 'd3600000', options.format(key=f'key-{j}')]
            reply = enqueue(keys=KEYS, args=args)
            assert len(reply) == expect * 4 * min(B, N - i), reply[:8]
        return instructions(name) / N

    created = phase('created', 'a', THROTTLE, 0)
    duplicate = phase('duplicate', 'b', THROTTLE, 1)
    replaced = phase('replaced', 'c', DEBOUNCE, 1)
    assert r.hlen(Q + 'jobs') == N and r.zcard(Q + 'due') == N
    print(f'{N} jobs of {PAY} B in calls of {B}, each with its own dedupe key: enqueue (created, throttle) '
          f'{created:,.0f} instructions/job, again in throttle mode (duplicate) {duplicate:,.0f}, again in debounce '
          f'mode (replaced) {replaced:,.0f}', flush=True)
finally:
    server.terminate()
    server.wait()
