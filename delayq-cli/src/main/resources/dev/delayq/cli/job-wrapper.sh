# delayq job wrapper (run as: sh -c THIS delayq-job COMMAND WORKER_PID GRACE).
# Runs the job's COMMAND (through sh -c, stdin passed on) in a session and process group of its own, and ends
# that whole group, background children included, when the command exits, when this wrapper gets SIGTERM (the
# worker stops the job: time-out, lost lease, shutdown, or the worker's death through a parent-death signal),
# or, with WORKER_PID set, when that process is gone (a watchdog in the group, where no parent-death signal is
# available). Ending the group: SIGTERM, then SIGKILL to whatever still runs after GRACE tenths of a second
# (zombies do not count: see group_runs); a SIGTERM that comes before the group exists ends its leader before it
# starts the command (see end_group). Exits with the command's status (143 when stopped).
# kill is written "kill -SIG -PGID": dash needs "--" before a negative pid after "-s SIG", busybox refuses it.
trap '' INT
cmd=$1
worker=$2
grace=$3
pgid=
stopping=
procfs=

# Whether a process of the group still runs. kill -0 also counts zombies, and a zombie whose parent is gone
# stays until PID 1 reaps it, which some PID 1s never do (a container whose PID 1 is the JVM): the group
# would seem to run for the whole grace. Where /proc is this shell's own (its pid there is $$), a thread
# counts only if it is not a zombie: in its stat, after the name's last ") ", come state, ppid and pgrp (a
# name holding ") S 1 PGID " can only make a group seem to run, the old way). A process of the group that
# forks a child and dies while grep reads can hide that child from one scan, so "gone" takes two scans in
# a row. Without /proc or grep, kill -0's answer stands.
group_runs() {
  kill -0 "-$pgid" 2>/dev/null || return 1
  own_proc || return 0
  for scan in 1 2; do
    grep -qs ") [^Z] [0-9]* $pgid " /proc/[0-9]*/task/[0-9]*/stat 2>/dev/null
    case $? in
      0) return 0 ;;
      1 | 2) ;; # none (2: a process ended while grep read, its file gone)
      *) return 0 ;;
    esac
  done
  return 1
}

# Whether /proc is this shell's own (its pid there is $$); looked up once.
own_proc() {
  if [ -z "$procfs" ]; then
    procfs=no
    { read -r self rest </proc/self/stat; } 2>/dev/null && [ "$self" = "$$" ] && procfs=yes
  fi
  [ "$procfs" = yes ]
}

# Whether the group's leader is still this shell's child from before its setsid (it runs, its parent is this
# shell, and its group is not yet its own): it has not started the command. Without /proc: not known, no.
leader_unsettled() {
  own_proc || return 1
  { read -r stat <"/proc/$pgid/stat"; } 2>/dev/null || return 1
  set -- ${stat##*") "}
  [ "$1" != Z ] && [ "$2" = "$$" ] && [ "$3" != "$pgid" ]
}

end_group() {
  [ -n "$pgid" ] || return 0
  while ! kill -TERM "-$pgid" 2>/dev/null; do
    # No such group: it is gone, or a SIGTERM came as the job started and its leader has not called setsid yet;
    # it has not started the command then, and SIGKILL ends it there. A leader that called setsid meanwhile
    # has a group, which the next round ends as usual.
    leader_unsettled || return 0
    kill -KILL "$pgid" 2>/dev/null
    wait "$pgid" 2>/dev/null
  done
  i=0
  while group_runs; do
    if [ "$i" -ge "$grace" ]; then
      kill -KILL "-$pgid" 2>/dev/null
      return 0
    fi
    i=$((i + 1))
    sleep 0.1 2>/dev/null || sleep 1
  done
}

# A SIGTERM before the group exists is remembered and acted on as soon as it does.
trap 'stopping=1' TERM
exec 3<&0
if [ -n "$worker" ]; then
  # The watchdog checks every second that the worker runs and, once it is gone, sends SIGTERM to the group.
  # So that a job leaves no zombie behind (an orphan that ends is one until PID 1 reaps it), the group's
  # leader stays a shell that, once the command is done, stops the watchdog with SIGTERM and waits for it,
  # and the watchdog its sleep (SIGKILL: a new child may lose a SIGTERM while it still has the parent's trap).
  # A SIGTERM to the group reaches the watchdog too; the leader's own trap waits for the command, as a trap
  # does, and then sends none. The leader sets its trap only after starting the watchdog, for the same
  # reason. Where SIGTERM was ignored when this shell started (nothing can then trap it), the leader becomes
  # the command, as it was before, and leaves the watchdog to end_group (SIGTERM is signal 15, bit 14 of
  # SigIgn: the fourth hex digit from the right is 4-7 or c-f). The leader's stderr is not the job's: the shell
  # says "Terminated" there when the command is stopped. The watchdog's "$!" is its sleep, or one it reaped an
  # instant before (too short a time for the pid to be used again).
  reap=yes
  { while read -r key value; do
      case $key in SigIgn:) case $value in *[4567cdefCDEF]???) reap=no ;; esac; break ;; esac
    done </proc/self/status; } 2>/dev/null
  setsid sh -c 'exec 4>&2 2>/dev/null
quit() { kill -KILL "$!"; wait; exit 0; }
watch() {
  trap quit TERM
  while kill -0 "$1"; do sleep 1 & wait "$!"; done
  trap - TERM
  kill -TERM "-$$"
}
watch "$2" </dev/null >/dev/null 4>&- &
[ "$3" = yes ] || exec sh -c "$1" 2>&4 4>&-
w=$!
stopped=
trap "stopped=1" TERM
(exec sh -c "$1" 2>&4 4>&-)
rc=$?
[ -n "$stopped" ] || kill -TERM "$w"
wait "$w"
exit "$rc"' sh "$cmd" "$worker" "$reap" <&3 3<&- &
else
  setsid sh -c "$cmd" sh <&3 3<&- &
fi
pgid=$!
exec 3<&-
trap 'end_group; exit 143' TERM
if [ -n "$stopping" ]; then
  end_group
  exit 143
fi
wait "$pgid"
rc=$?
end_group
exit "$rc"
