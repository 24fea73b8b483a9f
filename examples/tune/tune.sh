#!/bin/sh
# Tune the simulated PI loop of plant.py with a safegp study, over the
# command line (docs/quickstart.md): ask, simulate, tell, TRIALS times.
#   sh examples/tune/tune.sh DB [TRIALS]
set -eu
db=$1; trials=${2:-60}; here=$(dirname "$0")
safegp=${SAFEGP:-safegp}
$safegp study create "$here/pi.yaml" --db "$db" --study pi
i=0
while [ "$i" -lt "$trials" ]; do
  ask=$($safegp study ask --db "$db" --study pi)          # {"ask":1,"trial":0,"params":{"ki":0.05,"kp":0.3},...}
  id=$(echo "$ask" | sed 's/^{"ask":\([0-9]*\).*/\1/')
  params=$(echo "$ask" | sed 's/,"best".*//')             # the ask's params, not the best trial's
  kp=$(echo "$params" | sed 's/.*"kp":\([-0-9.e+]*\).*/\1/')
  ki=$(echo "$params" | sed 's/.*"ki":\([-0-9.e+]*\).*/\1/')
  set -- $(PLANT_TRIAL=$i python3 "$here/plant.py" "$kp" "$ki")   # settle_time=S overshoot=O
  $safegp study tell --db "$db" --study pi --ask "$id" --value "$1" --value "$2" > /dev/null
  i=$((i + 1))
done
$safegp study show --db "$db" --study pi
