# delayq job wrapper (run as: sh -c THIS delayq-job COMMAND WORKER_PID GRACE).
# Runs the job's COMMAND (through sh -c, stdin passed on) in a session and process group of its own, and ends
# that whole group, background children included, when the command exits, when this wrapper gets SIGTERM (the
# worker stops the job: time-out, lost lease, shutdown, or the worker's death through a parent-death signal),
# or, with WORKER_PID set, when that process is gone (a watchdog in the group, where no parent-death signal is
# available). Ending the group: SIGTERM, then SIGKILL to whatever is left after GRACE tenths of a second.
# Exits with the command's status (143 when stopped).
trap '' INT
cmd=$1
worker=$2
grace=$3
pgid=
stopping=

end_group() {
  [ -n "$pgid" ] || return 0
  kill -s TERM -- "-$pgid" 2>/dev/null || return 0
  i=0
  while kill -s 0 -- "-$pgid" 2>/dev/null; do
    if [ "$i" -ge "$grace" ]; then
      kill -s KILL -- "-$pgid" 2>/dev/null
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
  setsid sh -c '(while kill -s 0 "$2" 2>/dev/null; do sleep 1; done; kill -s TERM -- "-$$") </dev/null >/dev/null 2>&1 &
exec sh -c "$1"' sh "$cmd" "$worker" <&3 3<&- &
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
