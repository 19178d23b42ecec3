#!/usr/bin/env python3
"""Redis instructions of enqueue.lua per job for dedupe keys: a job created with a key (throttle, the baseline), the
same job enqueued again in throttle mode (a duplicate), and in debounce mode (a replace: docs/jobs.md, "Debounce").

Starts a private redis-server under valgrind's callgrind (a free port, never 6379), enqueues N jobs with N distinct
dedupe keys in calls of B, then each phase enqueues N jobs again with the same keys, and prints the instructions Redis
executed per job in each phase (as docs/perf/script-cost.py does with INSTR=1; see its header).

  INSTR=1 N=5000 python3 docs/perf/debounce-cost.py [LUA_DIR]
"""
import glob
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

import redis

LUA = sys.argv[1] if len(sys.argv) > 1 else 'delayq-core/src/main/resources/dev/delayq/lua'
N = int(os.environ.get('N', 5000))
B = int(os.environ.get('B', 100))
PAY = int(os.environ.get('PAY', 100))


def definitions(include):  # as script-cost.py (Script.java's split)
    lines = include.splitlines(keepends=True)
    starts = [i for i, l in enumerate(lines) if l.startswith('local ')]
    out = []
    for k, i in enumerate(starts):
        while i > 0 and lines[i - 1].startswith('--') and (k == 0 or i - 1 > starts[k - 1]):
            i -= 1
        starts[k] = i
    for k, i in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        text = ''.join(lines[i:end])
        head = next(l for l in lines[i:end] if l.startswith('local '))
        m = re.match(r'local\s+function\s+(\w+)', head) or re.match(r'local\s+([\w\s,]+?)\s*=', head)
        out.append(([n.strip() for n in m.group(1).split(',')], text))
    return out


def names(code):
    return {n for l in code.splitlines() if not l.lstrip().startswith('--') for n in re.findall(r'[A-Za-z_]\w*', l)}


def expand(name):
    java = os.path.join(LUA, '../../../../java/dev/delayq/internal/base/ScriptLimits.java')
    limits = {m.group(1): m.group(2).replace('_', '') for m in
              re.finditer(r'static final (?:int|long) (\w+) = ([\d_]+)L?;', open(java).read())}
    text = open(f'{LUA}/{name}.lua').read()
    inc = re.compile(r'(?m)^-- @include (\w+)[ \t]*\n?')
    found = list(inc.finditer(text))
    defs = [d for m in found for d in definitions(open(f'{LUA}/includes/{m.group(1)}.lua').read())]
    head, tail = text[:found[0].start()], text[found[-1].end():]
    wanted, kept = names(head + tail), set()
    while True:
        more = [i for i, (ns, t) in enumerate(defs) if i not in kept and any(n in wanted for n in ns)]
        if not more:
            break
        for i in more:
            kept.add(i)
            wanted |= names(defs[i][1])
    code = head + ''.join(t for i, (ns, t) in enumerate(defs) if i in kept) + tail
    return re.sub(r'\{\{(\w+)\}\}', lambda m: limits[m.group(1)], code)


s = socket.socket()
s.bind(('127.0.0.1', 0))
port = s.getsockname()[1]
s.close()
dumps = tempfile.mkdtemp(prefix='debounce-cost-')
server = subprocess.Popen(['valgrind', '--tool=callgrind', f'--callgrind-out-file={dumps}/cg.%p', 'redis-server',
                           '--port', str(port), '--save', '', '--appendonly', 'no', '--lua-time-limit', '600000'],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = redis.Redis(port=port)
for _ in range(300):
    try:
        r.ping()
        break
    except redis.ConnectionError:
        time.sleep(0.1)


def instructions(phase):
    subprocess.run(['callgrind_control', '-d', phase, str(server.pid)], stdout=subprocess.DEVNULL, check=True)
    newest = max(glob.glob(f'{dumps}/cg.{server.pid}.*'), key=lambda f: int(f.rsplit('.', 1)[1]))
    return int(re.search(r'^summary: (\d+)', open(newest).read(), re.M).group(1))


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
