#!/bin/bash
# End-to-end test of deploy/slurm on this machine: installs Debian's
# slurm-wlm and munge (apt-get; run as root), starts a one-node cluster on
# localhost (munged, slurmctld, slurmd, a minimal slurm.conf with this
# machine's CPUs and memory), checks it with a trivial job array, then
# submits a sweep as a job array of N shards and its merge (submit.sh) and
# compares the merged folder with the unsharded sweep: cmp of every cell's
# results.json and summary.csv, and of sweep.csv.
#
#   deploy/slurm/test.sh [--cluster-only] [SWEEP.yaml] [N]
#
# Defaults: sweep/testdata/small.yaml (2 × 2 cells, 2 realizations), N = 3.
# --cluster-only stops after the trivial array. The daemons it started are
# stopped at the end (KEEP=1 keeps them); its files are in a fresh /tmp
# folder, named at the end.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
only=0
if [ "${1:-}" = --cluster-only ]; then only=1; shift; fi
sweep=${1:-$repo/sweep/testdata/small.yaml}
n=${2:-3}
[ "$(id -u)" = 0 ] || { echo "test.sh: run as root: it installs packages and starts daemons" >&2; exit 1; }

work=$(mktemp -d /tmp/safegp-slurm.XXXXXX)
chmod 755 "$work"
echo "== work folder $work"

echo "== install slurm-wlm and munge"
if ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge > /dev/null
fi

started=()
cleanup() {
  if [ "${KEEP:-0}" = 1 ]; then echo "== KEEP=1: daemons left running (pids ${started[*]:-none})"; return; fi
  for pid in "${started[@]:-}"; do
    if [ -n "$pid" ]; then kill "$pid" 2> /dev/null || true; fi
  done
}
trap cleanup EXIT

echo "== munge"
if ! pgrep -x munged > /dev/null; then
  mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
  chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
  chmod 400 /etc/munge/munge.key
  runuser -u munge -- /usr/sbin/munged
  sleep 1
  started+=("$(pgrep -x -u munge munged | head -1)")
fi
munge -n | unmunge > /dev/null

echo "== slurm.conf for one node"
host=$(hostname -s)
cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 256 ))
mkdir -p /etc/slurm "$work/state" "$work/spool"
conf=/etc/slurm/slurm.conf
if [ -e "$conf" ] && ! grep -q "ClusterName=safegp-test" "$conf"; then
  echo "test.sh: $conf exists and is not this test's; not replacing it" >&2; exit 1
fi
cat > "$conf" << CONF
# Written by safegp's deploy/slurm/test.sh: a one-node test cluster.
ClusterName=safegp-test
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
# slurmd reads cgroup.conf only with cgroup plugins; none are used.

echo "== start slurmctld and slurmd ($cpus CPUs, $mem MiB)"
if pgrep -x slurmctld > /dev/null || pgrep -x slurmd > /dev/null; then
  echo "test.sh: slurmctld or slurmd runs already; stop it first (this test starts its own)" >&2; exit 1
fi
slurmctld -i
slurmd
sleep 2
started+=("$(cat "$work/slurmctld.pid")" "$(cat "$work/slurmd.pid")")
for _ in $(seq 1 30); do
  state=$(sinfo -h -n "$host" -o %t 2> /dev/null || true)
  case "$state" in idle*|mix*|alloc*) break ;; esac
  sleep 1
done
sinfo

# wait_job JOBID: until the job (every task of an array) has left the queue;
# fails unless every task COMPLETED.
wait_job() {
  for _ in $(seq 1 600); do
    [ -z "$(squeue -h -j "$1" 2> /dev/null)" ] && break
    sleep 1
  done
  local states
  states=$(scontrol -o show job "$1" 2> /dev/null | grep -o 'JobState=[A-Z_]*' | sort -u)
  echo "job $1: $states"
  [ "$states" = "JobState=COMPLETED" ]
}

echo "== a trivial array"
mkdir -p "$work/trivial"
# shellcheck disable=SC2016 # the task expands the variables, not this shell
jid=$(sbatch --parsable --array=1-3 --chdir="$work/trivial" --output="$work/trivial/%a.out" \
  --wrap 'echo "task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_MIN-$SLURM_ARRAY_TASK_MAX"')
wait_job "$jid"
for i in 1 2 3; do
  grep -qx "task $i of 1-3" "$work/trivial/$i.out" || { echo "task $i's output:"; cat "$work/trivial/$i.out"; exit 1; }
done
echo "trivial array: ok"
if [ "$only" = 1 ]; then exit 0; fi

echo "== build safegp"
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/safegp" ./cmd/safegp)
export SAFEGP="$work/safegp"

echo "== the unsharded sweep"
"$SAFEGP" sweep "$sweep" --out "$work/unsharded" --quiet

echo "== the sweep as a job array of $n shards, then the merge"
ids=$("$repo/deploy/slurm/submit.sh" sweep "$sweep" "$work/sharded" "$n")
echo "$ids"
array=${ids#array } array=${array%% *}       # "array ID (…), merge ID (…)"
merge=${ids##*, merge } merge=${merge%% *}
wait_job "$array" || { cat "$work"/sharded/safegp-shard-*.out; exit 1; }
wait_job "$merge" || { cat "$work"/sharded/safegp-merge-*.out; exit 1; }

echo "== compare"
fail=0
cmp "$work/unsharded/sweep.csv" "$work/sharded/merged/sweep.csv" || fail=1
cells=0
for d in "$work"/unsharded/cells/*/; do
  c=$(basename "$d")
  for f in results.json summary.csv; do
    cmp "$d/$f" "$work/sharded/merged/cells/$c/$f" || fail=1
  done
  cells=$((cells + 1))
done
if [ "$fail" = 0 ]; then
  echo "test.sh: ok: $n shards merged into $work/sharded/merged; sweep.csv and $cells cells' results.json and summary.csv identical to the unsharded sweep"
else
  echo "test.sh: FAILED: the merged folder differs from the unsharded sweep (see cmp above)" >&2
  exit 1
fi
