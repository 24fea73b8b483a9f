#!/bin/sh
# Regenerates docs/figures: every figure the project draws and a dashboard
# screenshot per kind of study, as docs/gallery.md shows them.
#   sh docs/gallery.sh            (from the repository's root; 12 min on 2 cores)
# Needs Go, python3 (examples/tune's plant) and Chromium (the screenshots).
# The figures of docs/figures/before/ are history and are left alone.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
fig=$root/docs/figures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
go build -o "$tmp/safegp" ./cmd/safegp
sg=$tmp/safegp

# The paper's figures (the main job) and its ablations.
$sg reproduce --out "$tmp/r" > /dev/null
cp "$tmp/r/illustration/illustration.png" "$fig/fig1-illustration.png"
cp "$tmp/r/fig2-regret.png" "$fig/fig2-regret.png"
cp "$tmp/r/linear/regret.png" "$fig/fig4-linear.png"
cp "$tmp/r/phase1/regret.png" "$fig/fig5-phase1.png"
cp "$tmp/r/fig6-regret-1-10.png" "$tmp/r/fig7-regret-11-20.png" "$tmp/r/fig8-regret-21-25.png" "$fig/"
for r in 1-10 11-20 21-25; do cp "$tmp/r/regret-$r/regret.png" "$fig/regret-$r-ablation.png"; done
# One figure at a paper's column width.
$sg run examples/regime-1-10.yaml --out "$tmp/col" --figure-width 3.5 > /dev/null
cp "$tmp/col/regret.png" "$fig/regret-one-column.png"
# Safety under a wrong model.
$sg safety --out "$tmp/s" > /dev/null
cp "$tmp/s/safety.png" "$fig/safety.png"
# Safety on the field's benchmarks (docs/safety-benchmarks.md).
$sg safety --suite losbo --out "$tmp/losbo" > /dev/null
cp "$tmp/losbo/losbo.png" "$fig/losbo-suite.png"
$sg run examples/itl-1d-hard.yaml --out "$tmp/itl" > /dev/null
cp "$tmp/itl/regret.png" "$fig/itl-1d-hard.png"
$sg run examples/itl-2d-island.yaml --out "$tmp/isl" > /dev/null
cp "$tmp/isl/regret.png" "$fig/itl-2d-island.png"
# line-bo on the benchmarks and on GP samples in high dimension.
for e in linebo-camelback linebo-hartmann6; do
  $sg run "examples/$e.yaml" --out "$tmp/$e" > /dev/null
  cp "$tmp/$e/regret.png" "$fig/$e.png"
done
for d in 10 20 40; do
  $sg run "examples/highdim/gp-sample-d$d.yaml" --out "$tmp/d$d" > /dev/null
  cp "$tmp/d$d/regret.png" "$fig/gp-sample-d$d.png"
done
# A sweep.
(cd examples && $sg sweep sweep-lengthscale.yaml --out "$tmp/sweep" > /dev/null)
cp "$tmp/sweep/sweep.png" "$fig/sweep-lengthscale.png"
# study plot of the PI loop tuned in its units (40 trials of examples/tune).
SAFEGP=$sg sh examples/tune/tune.sh "$tmp/pi.db" 40 > /dev/null
$sg study plot --db "$tmp/pi.db" --study pi --out "$fig/study-plot-pi.png" > /dev/null
# The dashboard, one page per kind of study (server's test fixtures).
go test -count=1 -run TestDashboardGallery ./server -args -gallery "$fig" > /dev/null
echo "wrote $fig"
