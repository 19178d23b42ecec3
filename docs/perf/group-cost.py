#!/usr/bin/env python3
"""Groups (docs/groups.md): the fairness run and the claim cost with many groups, on a private redis-server.

  python3 docs/perf/group-cost.py fair [LUA_DIR]    # one group with BIG due jobs (enqueued first), nine with SMALL each:
                                                    # claims of B jobs until none is left; prints, per small group, the
                                                    # position of its last job among all starts
  python3 docs/perf/group-cost.py cost [LUA_DIR]    # NGROUPS groups of JOBS jobs each (all due), then CLAIMS jobs claimed
                                                    # in calls of B: Redis CPU and time in EVALSHA per claimed job; the
                                                    # same with as many ungrouped jobs beside it
  BIG=100000 SMALL=10 B=10 NGROUPS=10000 JOBS=100 CLAIMS=20000   (not GROUPS: bash drops assignments to it)

Scripts are expanded as Script.java sends them (docs/perf/luascripts.py). No JVM involved.
"""
import os
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else 'fair'
LUA = sys.argv[2] if len(sys.argv) > 2 else 'delayq-core/src/main/resources/dev/delayq/lua'
BIG, SMALL, B = int(os.environ.get('BIG', 100000)), int(os.environ.get('SMALL', 10)), int(os.environ.get('B', 10))
GROUPS, JOBS, CLAIMS = int(os.environ.get('NGROUPS', 10000)), int(os.environ.get('JOBS', 100)), int(os.environ.get('CLAIMS', 20000))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import luascripts  # noqa: E402  (the scripts as Script.java sends them; the private server)

redis_server = luascripts.Server(prefix='group-cost-')
server, r = redis_server.process, redis_server.redis


def expand(name):
    return luascripts.expand(LUA, name)


enqueue = r.register_script(expand('enqueue'))
claim = r.register_script(expand('claim'))


def keys(q):
    p = f'dq:{{{q}}}:'
    enq = [p + k for k in ('jobs', 'due', 'meta', 'dedupe', 'dedupe:holds', 'history', 'due:prio', 'events')]
    cl = [p + k for k in ('due', 'leases', 'jobs', 'meta', 'dead', 'dedupe', 'dedupe:holds', 'history', 'due:prio',
                          'events', 'rate', 'progress')]
    return enq, cl


def options(group):
    return '0' + '\0' * 8 + ('\0group=' + group if group else '') if group else ''


def put(q, jobs):
    """jobs: [(id, group or None)], in calls of 1000."""
    enq, _ = keys(q)
    for i in range(0, len(jobs), 1000):
        part = jobs[i:i + 1000]
        args = ['ch', len(part)]
        for jid, g in part:
            args += [jid, 'x' * 100, 'd0', options(g)]
        assert enqueue(keys=enq, args=args) == []


def claim_args(n):
    return [n, 3600000, 0, 10, 1000, 60000, 1, 'ch', 100, 'w', 500, 8 << 20]


def ids_of(reply):
    return [reply[i] for i in range(10, len(reply), 2)]


def fair():
    jobs = [(f'big-{i}', 'big') for i in range(BIG)]
    for g in range(1, 10):
        jobs += [(f'g{g}-{i}', f'g{g}') for i in range(SMALL)]
    put('fair', jobs)
    _, cl = keys('fair')
    started = []
    while True:
        got = ids_of(claim(keys=cl, args=claim_args(B)))
        if not got:
            break
        started += [x.decode() for x in got]
        if len(started) > 2000 and all(f'g{g}-{SMALL - 1}' in set(started) for g in range(1, 10)):
            break
    pos = {jid: i + 1 for i, jid in enumerate(started)}
    print(f'{BIG} due jobs in group big (enqueued first), {SMALL} in each of g1..g9; claims of {B}:')
    for g in range(1, 10):
        last = max(pos[f'g{g}-{i}'] for i in range(SMALL))
        print(f'  g{g}: last job started {last}th of all starts')
    print(f'  (without groups the first small job would start {BIG + 1}th)')


def cpu():
    i = r.info('cpu')
    return i['used_cpu_user'] + i['used_cpu_sys']


def cost():
    for q, grouped in (('plain', False), ('groups', True)):
        jobs = [(f'j{g}-{i}', f'tenant-{g}' if grouped else None) for i in range(JOBS) for g in range(GROUPS)]
        put(q, jobs)
        _, cl = keys(q)
        claim(keys=cl, args=claim_args(1))
        c0, e0 = cpu(), r.info('commandstats').get('cmdstat_evalsha', {}).get('usec', 0)
        n = 0
        while n < CLAIMS:
            n += len(ids_of(claim(keys=cl, args=claim_args(B))))
        c1, e1 = cpu(), r.info('commandstats').get('cmdstat_evalsha', {}).get('usec', 0)
        what = f'{GROUPS} groups of {JOBS}' if grouped else f'{GROUPS * JOBS} ungrouped'
        print(f'{what} jobs: {n} claimed in calls of {B}: {1e6 * (c1 - c0) / n:.2f} us Redis CPU/job, '
              f'{(e1 - e0) / n:.2f} us in EVALSHA/job')
        r.flushdb()


try:
    fair() if MODE == 'fair' else cost()
finally:
    server.terminate()
    server.wait()
