"""delayq's Lua scripts as Script.java sends them to Redis, and a private redis-server to run them on: shared by
script-cost.py, group-cost.py and debounce-cost.py (import it from the directory of this file)."""
import glob
import os
import re
import socket
import subprocess
import tempfile
import time

import redis


def definitions(include):
    """An include's top-level definitions (Script.java's split): [(names, text)], each from its 'local' line, with the
    comment lines right above it, to the next one's."""
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


def limits(lua):
    """The limits Script.java writes in place of {{NAME}} (ScriptLimits.java of the same checkout, when the script
    directory `lua` is in one)."""
    java = os.path.join(lua, '../../../../java/dev/delayq/internal/base/ScriptLimits.java')
    if not os.path.exists(java):
        return {}
    return {m.group(1): m.group(2).replace('_', '') for m in
            re.finditer(r'static final (?:int|long) (\w+) = ([\d_]+)L?;', open(java).read())}


def expand(lua, name, shake=True):
    """Script `name` of directory `lua` as Redis runs it (Script.java), its {{NAME}} limits written in: with shake
    (the default) only the include definitions it uses, else the includes whole (what delayq sent before
    2026-12-01 23:00 UTC)."""
    known = limits(lua)
    return re.sub(r'\{\{(\w+)\}\}', lambda m: known[m.group(1)], expand_includes(lua, name, shake))


def expand_includes(lua, name, shake=True):
    text = open(f'{lua}/{name}.lua').read()
    inc = re.compile(r'(?m)^-- @include (\w+)[ \t]*\n?')
    found = list(inc.finditer(text))
    if not found:
        return text
    if not shake:
        return inc.sub(lambda m: open(f'{lua}/includes/{m.group(1)}.lua').read(), text)
    defs = [d for m in found for d in definitions(open(f'{lua}/includes/{m.group(1)}.lua').read())]
    head, tail = text[:found[0].start()], text[found[-1].end():]
    wanted, kept = names(head + tail), set()
    while True:
        more = [i for i, (ns, t) in enumerate(defs) if i not in kept and any(n in wanted for n in ns)]
        if not more:
            break
        for i in more:
            kept.add(i)
            wanted |= names(defs[i][1])
    return head + ''.join(t for i, (ns, t) in enumerate(defs) if i in kept) + tail


class Server:
    """A private redis-server on a free loopback port (never 6379), under valgrind's callgrind when `instr`: then
    `instructions(phase)` reads the instructions Redis ran since the last call."""

    def __init__(self, instr=False, binary='redis-server', prefix='delayq-cost-'):
        s = socket.socket()
        s.bind(('127.0.0.1', 0))
        self.port = s.getsockname()[1]
        s.close()
        self.dumps = tempfile.mkdtemp(prefix=prefix)
        valgrind = ['valgrind', '--tool=callgrind', '--compress-strings=no', '--compress-pos=no',
                    f'--callgrind-out-file={self.dumps}/cg.%p'] if instr else []
        slow = ['--lua-time-limit', '600000'] if instr else []  # seeding takes seconds under valgrind: no BUSY replies
        self.process = subprocess.Popen(valgrind + [binary, '--port', str(self.port), '--save', '', '--appendonly', 'no']
                                        + slow, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.pid = self.process.pid
        self.redis = redis.Redis(port=self.port)
        for _ in range(300):  # under valgrind the server takes seconds to start
            try:
                self.redis.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.1)

    def instructions(self, phase):
        """Instructions the server ran since the last call (callgrind dumps and zeroes its counters)."""
        subprocess.run(['callgrind_control', '-d', phase, str(self.pid)], stdout=subprocess.DEVNULL, check=True)
        newest = max(glob.glob(f'{self.dumps}/cg.{self.pid}.*'), key=lambda f: int(f.rsplit('.', 1)[1]))
        return int(re.search(r'^summary: (\d+)', open(newest).read(), re.M).group(1))

    def stop(self):
        self.process.terminate()
        self.process.wait()
