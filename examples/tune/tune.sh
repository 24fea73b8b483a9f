#!/bin/sh
# Tune the simulated PI loop of plant.py with a safegp study, over the
# command line (docs/quickstart.md): ask, simulate, tell, TRIALS times.
#   sh examples/tune/tune.sh DB [TRIALS]
# The loop's commands go to a safegp serve on DB, started here and stopped
# at the end, which keeps the study in memory between them (SAFEGP_SERVER;
# with --db each command would replay the study from the file instead).
set -eu
db=$1; trials=${2:-60}; here=$(dirname "$0")
safegp=${SAFEGP:-safegp}
log=$(mktemp)
$safegp serve --db "$db" --addr 127.0.0.1:0 2> "$log" &
server=$!
trap 'kill $server 2> /dev/null; wait $server 2> /dev/null; rm -f "$log"' EXIT
trap 'exit 1' HUP INT TERM            # a signal runs the EXIT trap too: no server left behind
until addr=$(sed -n 's/.*"msg":"listening","addr":"\([^"]*\)".*/\1/p' "$log"); [ -n "$addr" ]; do
  kill -0 $server 2> /dev/null || { cat "$log" >&2; exit 1; }     # serve failed: say why
  sleep 0.05
done
export SAFEGP_SERVER="http://$addr"
$safegp study create "$here/pi.yaml" --study pi > /dev/null
i=0
while [ "$i" -lt "$trials" ]; do
  ask=$($safegp study ask --study pi)          # {"ask":1,"trial":0,"params":{"ki":0.05,"kp":0.3},...}
  id=$(echo "$ask" | sed 's/^{"ask":\([0-9]*\).*/\1/')
  params=$(echo "$ask" | sed 's/,"best".*//')             # the ask's params, not the best trial's
  kp=$(echo "$params" | sed 's/.*"kp":\([-0-9.e+]*\).*/\1/')
  ki=$(echo "$params" | sed 's/.*"ki":\([-0-9.e+]*\).*/\1/')
  set -- $(PLANT_TRIAL=$i python3 "$here/plant.py" "$kp" "$ki")   # settle_time=S overshoot=O
  $safegp study tell --study pi --ask "$id" --value "$1" --value "$2" > /dev/null
  i=$((i + 1))
done
$safegp study show --study pi
