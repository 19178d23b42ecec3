#!/usr/bin/env python3
"""Redis CPU of claim.lua and complete.lua alone, per job (docs/perf/journal.md, "Where the time goes", Redis side).

Starts a private redis-server (a free port, never 6379), seeds N due jobs of PAY payload bytes (fresh records as
enqueue.lua writes them), claims them all in calls of B jobs, then completes them all in calls of B, and prints
Redis's own CPU (INFO cpu, user + sys) and the time inside EVALSHA (INFO commandstats) per job for each phase.
No JVM is involved, so the figure is the scripts' alone.

  pip install redis
  python3 docs/perf/script-cost.py [LUA_DIR]       # LUA_DIR: delayq-core/src/main/resources/dev/delayq/lua
  N=5000 PAY=10240 REPS=3 python3 docs/perf/script-cost.py
  RET=3600000 python3 docs/perf/script-cost.py    # completions keep the done record (the client's default, 1 h); also
                                                  # prints the Redis memory each job kept done takes
  INSTR=1 N=5000 REPS=1 python3 docs/perf/script-cost.py   # instructions instead of time (valgrind; see below)
  DISTINCT=1 PAY=10240 N=5000 python3 docs/perf/script-cost.py   # payloads that differ (their last 12 bytes)
  SPREAD=1 python3 docs/perf/script-cost.py      # due times that differ (1 ms apart), where W1's burst shares one
  TOKENS=10000000 python3 docs/perf/script-cost.py   # a queue that has leased 10 million jobs (before tokens came
                                                  # from the clock: 4-byte tokens; since, every token takes 8)
  ENQ=1 python3 docs/perf/script-cost.py         # enqueue the jobs through enqueue.lua (calls of B) and print its cost
  REDIS=/path/to/redis-server python3 docs/perf/script-cost.py   # another server binary (e.g. one built with symbols)
  HELD=4 python3 docs/perf/script-cost.py        # claims and completes interleaved, as workers run them: at most 4
                                                  # claims' jobs held, the oldest completed before the next claim
                                                  # (without HELD all N are claimed first, which grows the leases set
                                                  # to N); prints claim + complete together
  SHAKE=0 python3 docs/perf/script-cost.py LUA_DIR   # includes pasted whole, as delayq sent scripts before it sent
                                                     # only the definitions each uses (Script.java): for older LUA_DIRs
  INSTR=1 KEEP=1 python3 docs/perf/script-cost.py   # keep callgrind's dumps (one per phase) and print where they are

Compare two versions by pointing LUA_DIR at two checkouts, alternating the runs.

With INSTR=1 the server runs under valgrind's callgrind, and each phase prints the machine instructions Redis
executed per job (everything it did between the phase's first and last reply: reading commands, the scripts,
writing replies). CPU time on a shared machine varies by tens of percent from run to run; instruction counts
are the same to a few parts in a thousand for the same binary and inputs, whatever else the machine does. They
do not see cache misses or memory stalls, so they show what a change does to the work, and time still decides.
"""
import os
import shutil
import sys

import redis

LUA = sys.argv[1] if len(sys.argv) > 1 else 'delayq-core/src/main/resources/dev/delayq/lua'
N = int(os.environ.get('N', 20000))
B = int(os.environ.get('B', 100))
PAY = int(os.environ.get('PAY', 100))
REPS = int(os.environ.get('REPS', 3))
RET = int(os.environ.get('RET', 0))  # complete's done retention ms: 0 deletes each record, > 0 keeps it as done
INSTR = os.environ.get('INSTR') == '1'  # count instructions under callgrind instead of reading CPU time
DISTINCT = os.environ.get('DISTINCT') == '1'  # each payload ends in its job's number (PAY >= 12), else all alike
SPREAD = os.environ.get('SPREAD') == '1'  # each job due at its own ms (1 ms apart), else all due at the same ms
TOKENS = int(os.environ.get('TOKENS', 0))  # leases the queue made before (its token counter): 0 is a new queue
ENQ = os.environ.get('ENQ') == '1'  # seed through enqueue.lua (and report its cost) instead of writing records directly
REDIS = os.environ.get('REDIS', 'redis-server')  # the server binary
KEEP = os.environ.get('KEEP') == '1'  # keep callgrind's dumps (read by docs/perf/callgrind-self.py)
HELD = int(os.environ.get('HELD', 0))  # > 0: claims and completes interleaved, at most HELD claims' jobs leased
SHAKE = os.environ.get('SHAKE', '1') == '1'  # only the include definitions a script uses, as Script.java sends it


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import luascripts  # noqa: E402  (the scripts as Script.java sends them; the private server)


def expand(name):
    """The script as Redis runs it (Script.java), its {{NAME}} limits written in: with SHAKE=1 (the default) only the
    include definitions it uses, with SHAKE=0 the includes whole (what delayq sent before 2026-12-01 23:00 UTC)."""
    return luascripts.expand(LUA, name, SHAKE)


redis_server = luascripts.Server(INSTR, REDIS, 'script-cost-')
server, dumps, r, instructions = redis_server.process, redis_server.dumps, redis_server.redis, redis_server.instructions


def cpu():
    i = r.info('cpu')
    return i['used_cpu_user'] + i['used_cpu_sys']


def in_scripts():
    return r.info('commandstats').get('cmdstat_evalsha', {}).get('usec', 0)


def checkpoint(phase):
    """At the end of a phase: (instructions since the last checkpoint, 0, 0) with INSTR=1, else (0, Redis's CPU
    seconds so far, microseconds in EVALSHA so far)."""
    if INSTR:
        return instructions(phase), 0, 0
    return 0, cpu(), in_scripts()


Q = 'dq:{q}:'
CLAIM_KEYS = [Q + k for k in ('due', 'leases', 'jobs', 'meta', 'dead', 'dedupe', 'dedupe:holds', 'history', 'due:prio',
                              'events', 'rate', 'progress')]
ENQUEUE_KEYS = [Q + k for k in ('jobs', 'due', 'meta', 'dedupe', 'dedupe:holds', 'history', 'due:prio', 'events')]
COMPLETE_KEYS = [Q + k for k in ('leases', 'jobs', 'done:batches', 'meta', 'dedupe', 'dedupe:holds', 'history', 'dead', 'events',
                                 'progress')]  # before the done batches, the third key was the done set
# Fresh scheduled records (flags: scheduled + created; seq; created; payload) and their due-set members.
SEED = '''
local n, pay = tonumber(ARGV[1]), ARGV[2]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 - 1000 -- every job due then, or (SPREAD=1) the i-th at now - n + i
local function v(x) local s = '' while x >= 128 do local l = x % 128 s = s .. string.char(l + 128) x = (x - l) / 128 end return s .. string.char(x) end
for i = 1, n do
  local id = 'job-' .. i
  local p = pay
  if ARGV[3] == '1' then p = string.sub(pay, 1, #pay - 12) .. string.format('%012d', i) end
  redis.call('HSET', KEYS[1], id, string.char(65) .. v(i) .. v(200000000) .. p)
  redis.call('ZADD', KEYS[2], ARGV[4] == '1' and now - n + i or now, string.char(0, 0, 0, math.floor(i / 65536) % 256, math.floor(i / 256) % 256, i % 256) .. id)
end
redis.call('HSET', KEYS[3], 'seq', n, 'token', ARGV[5])
'''


def tokens(n, before):
    """The tokens of the n jobs the last claim leased, in order: up to meta `fence` (tokens from Redis's clock, since
    2026-12-06), else (earlier scripts, a counter) before + 1 to before + n. The HGET is one call per claim, counted."""
    fence = r.hget(Q + 'meta', 'fence')
    return list(range(int(fence) - n + 1, int(fence) + 1)) if fence else list(range(before + 1, before + n + 1))


def claim_args(n):
    # max, lease ms, lookahead ms, recover limit, backoff base, cap, seed, channel, max stalls, worker, stand-by, bytes
    return [n, 30000, 50, 10, 1000, 60000, 1, 'ch', 100, 'w', 500, 8 << 20]


def overlay_id(head):
    """A job's id from claim's reply: for a job leased by a lease overlay (record.lua) the reply gives a zero byte,
    the overlay (a state byte and three varints) and the id."""
    if not head.startswith(b'\x00'):
        return head
    pos, ends = 2, 0
    while ends < 3:
        ends += head[pos] < 128
        pos += 1
    return head[pos:]



def run():
    r.flushall()
    m0 = r.info('memory')['used_memory']
    enq = ''
    if ENQ:  # through enqueue.lua, as the client sends it: calls of B jobs, absolute due times, no options
        enqueue = r.register_script(expand('enqueue'))
        t = r.time()
        base = t[0] * 1000 + t[1] // 1000 - 1000
        enqueue(keys=ENQUEUE_KEYS, args=['ch', 1, 'warm-up', 'x', f'a{base}', ''])
        r.delete(*ENQUEUE_KEYS)
        ie, ce, se = checkpoint('before-enqueue')
        for i in range(1, N + 1, B):
            args = ['ch', min(B, N + 1 - i)]
            for j in range(i, min(i + B, N + 1)):
                pay = 'x' * PAY if not DISTINCT else 'x' * (PAY - 12) + f'{j:012d}'
                args += [f'job-{j}', pay, f'a{base - N + j if SPREAD else base}', '']
            assert enqueue(keys=ENQUEUE_KEYS, args=args) == []
        ie, ce2, se2 = checkpoint('enqueue')
        r.hset(Q + 'meta', 'token', TOKENS)
        enq = (f'enqueue {ie / N:,.0f} instructions/job, ' if INSTR else
               f'enqueue {1e6 * (ce2 - ce) / N:.2f} us CPU/job ({(se2 - se) / N:.2f} us in EVALSHA), ')
    else:
        r.eval(SEED, 3, Q + 'jobs', Q + 'due', Q + 'meta', N, 'x' * PAY, '1' if DISTINCT else '0', '1' if SPREAD else '0',
               TOKENS)
    claim = r.register_script(expand('claim'))
    complete = r.register_script(expand('complete'))
    claim(keys=CLAIM_KEYS, args=claim_args(0))  # loads the script
    ids = []
    _, c0, s0 = checkpoint('seed')
    if HELD:
        held = []  # the calls of complete owed, oldest first

        def complete_oldest():
            assert all(code == 1 for code in complete(keys=COMPLETE_KEYS, args=held.pop(0)))

        while True:
            got = claim(keys=CLAIM_KEYS, args=claim_args(B))[10:]
            if not got:
                break
            args = [RET, 'ch']
            for i, token in zip(got[0::2], tokens(len(got) // 2, TOKENS + len(ids))):
                ids.append(overlay_id(i))
                args += [ids[-1], token]
            held.append(args)
            if len(held) >= HELD:
                complete_oldest()
        while held:
            complete_oldest()
        i1, c1, s1 = checkpoint('claim-and-complete')
        assert len(ids) == N and r.zcard(Q + 'leases') == 0
        what = f'{len(ids)} jobs of {PAY} B in calls of {B}, at most {HELD} claims held: {enq}claim + complete'
        print(f'{what} {i1 / N:,.0f} instructions/job' if INSTR else
              f'{what} {1e6 * (c1 - c0) / N:.2f} us CPU/job ({(s1 - s0) / N:.2f} us in EVALSHA)', flush=True)
        return
    toks = []
    while True:
        got = claim(keys=CLAIM_KEYS, args=claim_args(B))[10:]
        if not got:
            break
        toks += tokens(len(got) // 2, TOKENS + len(ids))
        ids += [overlay_id(i) for i in got[0::2]]
    i1, c1, s1 = checkpoint('claim')
    for i in range(0, len(ids), B):
        args = [RET, 'ch']
        for j in range(i, min(i + B, len(ids))):
            args += [ids[j], toks[j]]
        assert all(code == 1 for code in complete(keys=COMPLETE_KEYS, args=args))
    i2, c2, s2 = checkpoint('complete')
    kept = f', {(r.info("memory")["used_memory"] - m0) / N:.0f} B/job of Redis memory kept done' if RET else ''
    # Kept records (and, from the lease overlays on, one overlay field beside each: record.lua), or none.
    assert r.hlen(Q + 'jobs') in ((N, 2 * N) if RET else (0,))
    if INSTR:
        print(f'{len(ids)} jobs of {PAY} B in calls of {B}: {enq}claim {i1 / N:,.0f} instructions/job, '
              f'complete {i2 / N:,.0f} instructions/job, both {(i1 + i2) / N:,.0f}{kept}', flush=True)
        return
    print(f'{len(ids)} jobs of {PAY} B in calls of {B}: {enq}claim {1e6 * (c1 - c0) / N:.2f} us CPU/job '
          f'({(s1 - s0) / N:.2f} us in EVALSHA), complete {1e6 * (c2 - c1) / N:.2f} us CPU/job '
          f'({(s2 - s1) / N:.2f} us in EVALSHA){kept}', flush=True)


try:
    for _ in range(REPS):
        run()
finally:
    server.terminate()
    server.wait()
    if KEEP and INSTR:
        print(f'callgrind dumps, one per phase: {dumps}')
    else:
        shutil.rmtree(dumps, ignore_errors=True)
