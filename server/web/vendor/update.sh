#!/bin/sh
# Fetches the dashboard's plotting library from the npm registry at the
# version pinned here and checks it against the digest recorded here:
# Plotly.js's cartesian bundle (scatter, heatmap, contour, box; no WebGL),
# MIT-licensed. Run from this folder; commit the two files it writes.
set -eu
VERSION=3.7.0
SHA256=7c593b9eda0e74a1d07335cf89cbf7a55ffc114909980c3729af835453bdb02a
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "plotly.js-cartesian-dist-min@$VERSION" >/dev/null && tar xzf ./*.tgz)
echo "$SHA256  $tmp/package/plotly-cartesian.min.js" | sha256sum -c -
cp "$tmp/package/plotly-cartesian.min.js" plotly-cartesian.min.js
cp "$tmp/package/LICENSE" plotly-LICENSE
