#!/bin/bash
# Submits a sweep (or a run) as a Slurm job array of N shards and, after
# it, the merge: OUT/shards/1 … N, then OUT/merged, the unsharded output.
#
#   deploy/slurm/submit.sh sweep examples/sweep-lengthscale.yaml /shared/out 7 [sbatch options…]
#   deploy/slurm/submit.sh losbo 10000 /shared/out 50    # the LoSBO suite: RUNS (or RUNS:K) in place of the file
#
# Extra arguments go to both sbatch calls (--partition, --account, --time…).
# N goes to both jobs as an argument, so that a failed task can be rerun on
# its own with the same N: sbatch --array=3 sweep.sbatch sweep FILE OUT N.
# Prints the two job ids. SAFEGP (the binary's path) is passed on to the jobs.
set -euo pipefail

if [ $# -lt 4 ]; then
  echo "usage: $0 sweep|run FILE.yaml OUT N [sbatch options...], or $0 losbo RUNS OUT N [...]" >&2
  exit 2
fi
cmd=$1 file=$2 out=$3 n=$4
shift 4
case "$n" in ''|*[!0-9]*|0*) echo "$0: N must be a positive integer without leading zeros, got $n" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
# Absolute paths: the jobs may start elsewhere (losbo's second argument
# is its runs, a number).
if [ "$cmd" = losbo ]; then
  case "$file" in ''|*[!0-9:]*|0*|:*|*:|*:*:*) echo "$0: losbo's RUNS must be a positive integer (or RUNS:K, the first K functions), got $file" >&2; exit 2 ;; esac
else
  file=$(cd "$(dirname "$file")" && pwd)/$(basename "$file")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

array=$(sbatch --parsable --array=1-"$n" --chdir="$out" "$@" "$here/sweep.sbatch" "$cmd" "$file" "$out" "$n")
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterok:"$array" --kill-on-invalid-dep=yes --chdir="$out" "$@" "$here/merge.sbatch" "$out" "$n")
merge=${merge%%;*}
echo "array $array ($n shards into $out/shards), merge $merge (into $out/merged)"
