#!/usr/bin/env bash
# A throw-away one-node Slurm cluster for tests (Debian 12, run as root, no systemd needed).
#   bash tests/slurm/cluster.sh start STATE_DIR   # last line of stdout: export SLURM_CONF=...
#   bash tests/slurm/cluster.sh stop  STATE_DIR
# Needs the Debian packages slurm-wlm and munge; installs nothing. Everything it writes (config,
# munge key and socket, state, spool, logs, pid files) lives under STATE_DIR; /etc is not touched.
# Ports: SLURM_TEST_PORT (default 6817) for slurmctld, and the next one for slurmd.
set -euo pipefail

usage() { echo "usage: $0 start|stop STATE_DIR" >&2; exit 2; }
[[ $# -eq 2 && ($1 == start || $1 == stop) ]] || usage
action=$1
if [[ $action == stop && ! -d $2 ]]; then exit 0; fi
mkdir -p "$2"
S=$(cd "$2" && pwd -P)                       # absolute: the daemons chdir elsewhere
export SLURM_CONF=$S/slurm.conf
DAEMONS=(munged slurmctld slurmd)            # start order

# Is pid $1 a live process? A zombie is not: a daemon that died stays a zombie until reaped
# (by us while we run, later by PID 1 - some container inits are slow to reap).
alive() { [[ -n $1 && $(sed -n 's/^State:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null) == [^Z]* ]]; }
pid_of() { cat "$S/$1.pid" 2>/dev/null || true; }

# Stop one daemon by its recorded pid: SIGTERM, up to 10 s, then SIGKILL. The pid's command name
# is checked first, so a stale pid file can never make us signal an unrelated process.
stop_daemon() {
  local name=$1 pid i
  pid=$(pid_of "$name")
  if [[ -n $pid && $(cat "/proc/$pid/comm" 2>/dev/null) == "$name" ]]; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then echo "cluster.sh: $name ($pid) ignored SIGTERM: SIGKILL" >&2; kill -KILL "$pid" 2>/dev/null || true; fi
  fi
  rm -f "$S/$name.pid"
}

do_stop() {
  # Kill the cluster's jobs first: their slurmstepd processes would outlive slurmd.
  # SIGKILL skips KillWait and also cancels pending jobs. Every job here is ours.
  if alive "$(pid_of slurmctld)" && timeout 5 scontrol ping >/dev/null 2>&1; then
    local jobs i
    mapfile -t jobs < <(timeout 5 squeue -h -o %F 2>/dev/null | sort -u)   # %F: array job id
    if ((${#jobs[@]})); then
      timeout 10 scancel -s KILL "${jobs[@]}" 2>/dev/null || true
      for ((i = 0; i < 50; i++)); do [[ -z $(timeout 5 squeue -h -o %i 2>/dev/null) ]] && break; sleep 0.2; done
    fi
  fi
  stop_daemon slurmd; stop_daemon slurmctld; stop_daemon munged
}

# On any failure during start: show each daemon's log (or its stdout/stderr if the log is empty:
# errors before the log is opened go there), stop what was started, exit 1.
fail() {
  echo "cluster.sh: $*" >&2
  local d f
  for d in "${DAEMONS[@]}"; do
    for f in "$S/$d.log" "$S/$d.out"; do
      if [[ -s $f ]]; then echo "--- last lines of $f:" >&2; tail -n 15 "$f" >&2; break; fi
    done
  done
  do_stop
  exit 1
}

# Run daemon $1 (command: the rest) in the foreground mode, in the background, and record its
# pid. Descriptors above 2 are closed first: an inherited pipe held open by a daemon could keep
# a caller (test harness, CI log reader) waiting for EOF.
launch() {
  local name=$1; shift
  (
    for fd in /proc/self/fd/*; do fd=${fd##*/}; if ((fd > 2)); then eval "exec $fd>&-" || true; fi; done 2>/dev/null
    exec "$@" </dev/null >"$S/$name.out" 2>&1
  ) &
  echo $! >"$S/$name.pid"
}

do_start() {
  local d
  for d in "${DAEMONS[@]}"; do
    if alive "$(pid_of "$d")"; then echo "cluster.sh: $d already runs in $S: stop it first" >&2; exit 1; fi
  done
  trap 'fail "command failed at line $LINENO"' ERR
  # munged insists every directory above its socket is world-executable and no directory above
  # its key is group/other-writable, so STATE_DIR is 755 and STATE_DIR/munge holds key+socket.
  chmod 755 "$S"
  mkdir -p "$S/munge" "$S/ctld" "$S/spool"
  chmod 755 "$S/munge"
  rm -f "$S"/*.log "$S"/*.out "$S"/munge/munge.*
  mungekey --create --keyfile="$S/munge/munge.key"

  # slurm.conf. Node name = short hostname, reached at 127.0.0.1 so DNS does not matter.
  # No cgroups anywhere (proctrack/linuxproc, task/none, no jobacct_gather): CI containers often
  # have no writable, or only a v1/hybrid, cgroup tree. RealMemory: 90% of MemTotal, as slurmd
  # reporting less than configured would drain the node. CR_Core: memory is not a consumable,
  # so jobs need not ask for any and 1-CPU tasks run side by side. No accounting database:
  # sacct does not work; finished jobs stay in `scontrol show job` for MinJobAge (300 s) and
  # are appended to jobcomp.log. AuthInfo points slurm and its clients at our munge socket.
  local node port
  node=$(hostname -s 2>/dev/null || echo localhost)
  port=${SLURM_TEST_PORT:-6817}
  cat >"$SLURM_CONF" <<EOF
ClusterName=testcluster
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge/munge.socket
StateSaveLocation=$S/ctld
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$S/jobcomp.log
MpiDefault=none
MailProg=/bin/true
DependencyParameters=kill_invalid_depend   # a merge job whose array failed is cancelled, not left pending
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN RealMemory=$(awk '/^MemTotal:/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

  # Start the daemons in the foreground mode (-F/-D) as our background children, so $! is their
  # pid at once and a daemon that dies is noticed at once. munged first: slurm needs its socket.
  launch munged munged -F --key-file="$S/munge/munge.key" --socket="$S/munge/munge.socket" \
    --pid-file="$S/munge/munged.own.pid" --seed-file="$S/munge/munged.seed"     # -F: it logs to munged.out
  # (munged's own pid file is not ours, $S/munged.pid: munged truncates it and then writes it,
  # and a check between the two read an empty pid as "munged exited")
  local i
  for ((i = 0; i < 100; i++)); do
    alive "$(pid_of munged)" || fail "munged exited"; [[ -S $S/munge/munge.socket ]] && break; sleep 0.1
  done
  [[ -S $S/munge/munge.socket ]] || fail "munged made no socket in 10 s"
  launch slurmctld slurmctld -D -c -f "$SLURM_CONF"   # -c: empty state even if STATE_DIR was used
  launch slurmd slurmd -D -f "$SLURM_CONF"

  # Wait (30 s at most) until the node is idle, failing as soon as any daemon dies.
  local state=
  for ((i = 0; i < 150; i++)); do
    for d in "${DAEMONS[@]}"; do alive "$(pid_of "$d")" || fail "$d exited"; done
    state=$(timeout 5 sinfo -h -N -n "$node" -o %t 2>/dev/null || true)
    [[ $state == idle ]] && break
    sleep 0.2
  done
  [[ $state == idle ]] || fail "node $node not idle after 30 s (state: '${state:-none}')"
  trap - ERR
  echo "slurm cluster up: node $node, $(nproc) CPUs, logs in $S" >&2
  echo "export SLURM_CONF=$SLURM_CONF"
}

if [[ $action == start ]]; then do_start; else do_stop; fi
