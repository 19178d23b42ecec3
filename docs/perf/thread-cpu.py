#!/usr/bin/env python3
"""CPU per thread group of a command and its child processes (docs/perf/journal.md, "Where the time goes").

Runs the command (its stdout goes to thread-cpu.out), reads /proc/<pid>/task/<tid>/schedstat (nanoseconds on
CPU) of every thread of the process tree every 50 ms, keeps each thread's last reading (threads that end
between bursts keep their CPU up to their last 50 ms), and prints the CPU seconds per thread name with the
numbers taken out, e.g. 'bench-*-hand' for every handler thread of every bench worker. Linux only.

  python3 docs/perf/thread-cpu.py java -jar delayq-cli/target/delayq.jar bench --workload w1 --reps 3 --json
"""
import collections
import os
import re
import subprocess
import sys
import time

proc = subprocess.Popen(sys.argv[1:], stdout=open('thread-cpu.out', 'w'), stderr=subprocess.DEVNULL)
last = {}  # (pid, tid) -> (process name, thread name, ns on CPU)


def tree(pid):
    out = [pid]
    try:
        for t in os.listdir(f'/proc/{pid}/task'):
            try:
                out += [int(c) for c in open(f'/proc/{pid}/task/{t}/children').read().split()]
            except OSError:
                pass
    except OSError:
        pass
    return out


while proc.poll() is None:
    for pid in set(tree(proc.pid)):
        try:
            pname = open(f'/proc/{pid}/comm').read().strip()
            tids = os.listdir(f'/proc/{pid}/task')
        except OSError:
            continue
        for t in tids:
            try:
                name = open(f'/proc/{pid}/task/{t}/comm').read().strip()
                ns = int(open(f'/proc/{pid}/task/{t}/schedstat').read().split()[0])
                last[(pid, t)] = (pname, name, ns)
            except (OSError, ValueError, IndexError):
                pass
    time.sleep(0.05)

groups = collections.Counter()
for pname, name, ns in last.values():
    name = re.sub(r'-?\d+$', '', name)  # thread numbers
    name = re.sub(r'(bench-)(warmup|w\d)(-\d+)?-', r'\1*-', name)  # bench worker names (cut to 15 characters)
    groups[pname + ': ' + name] += ns / 1e9
total = sum(groups.values())
print(f'total {total:.2f} s CPU')
for name, sec in groups.most_common(30):
    print(f'{sec:7.2f} s {100 * sec / total:5.1f}% {name}')
sys.exit(proc.returncode)
