#!/usr/bin/env python3
"""Instructions per job by function, from one of the callgrind dumps `script-cost.py` keeps (INSTR=1 KEEP=1).

  python3 docs/perf/callgrind-self.py DUMP JOBS [TOP]    # e.g. /tmp/script-cost-xxxx/cg.1234.2 20000 40

Prints each function's own ("self") instructions divided by JOBS, largest first. Function names need a server
binary with symbols (REDIS=..., docs/perf/journal.md says how one was built); Debian's shows addresses. callgrind_annotate
3.19 put every instruction of these dumps (taken with callgrind_control -d) under __libc_start_main, hence this.
"""
import collections
import sys

own = collections.Counter()
fn, in_call = None, False
for line in open(sys.argv[1], errors='replace'):
    if line.startswith('fn='):
        fn = line[3:].strip()
    elif line.startswith('calls='):
        in_call = True  # the next cost line is the callee's inclusive cost: not this function's own
    elif line[:1].isdigit() or line[:1] in '+-*':
        parts = line.split()
        if len(parts) >= 2:
            if not in_call:
                own[fn] += int(parts[1])
            in_call = False
jobs = int(sys.argv[2])
total = sum(own.values())
print(f'{total / jobs:,.0f} instructions a job')
for name, n in own.most_common(int(sys.argv[3]) if len(sys.argv) > 3 else 40):
    print(f'{n / jobs:10,.0f} {100 * n / total:5.1f}%  {name}')
