#!/usr/bin/env bash
# cmake --install into a temporary prefix, then the installed vitsim predicts from another
# directory with the data it installed (docs/build.md, "Installing and the data folder"): its
# --help names the prefix's share/vitsim as the data folder and no build path; a moved prefix
# still finds its data; VITSIM_DATA pointing nowhere is an error naming the file, exit 2.
# Usage: install_test.sh CMAKE BUILD_DIR SOURCE_DIR
set -u
cmake=$1 build=$2 src=$3
d=$(mktemp -d "${TMPDIR:-/tmp}/vitsim-install-test.XXXXXX")
trap 'rm -rf "$d"' EXIT
fail() { echo "install_test: $*"; exit 1; }
unset VITSIM_DATA VITSIM_GPUS VITSIM_PRICES VITSIM_TRANSPORTS
"$cmake" --install "$build" --prefix "$d/prefix" > "$d/install.log" 2>&1 ||
  { cat "$d/install.log"; fail "cmake --install failed"; }
p=$d/prefix
[ -x "$p/bin/vitsim" ] || fail "no $p/bin/vitsim"
[ -f "$p/share/vitsim/platforms/gpus.json" ] || fail "no data in $p/share/vitsim"
cp "$src/tests/sim/fixtures/costs.json" "$d/costs.json"
mkdir "$d/elsewhere" && cd "$d/elsewhere" || fail "cd"

help=$("$p/bin/vitsim" --help 2>&1)
grep -qF "Here: $p/share/vitsim (the install prefix of the executable" <<< "$help" ||
  fail "vitsim --help does not name the installed data folder: $help"
phelp=$("$p/bin/vitsim" predict --help 2>&1)
grep -qF "DATA/platforms/gpus.json" <<< "$phelp" || fail "predict --help: no DATA default: $phelp"
grep -qF "$src" <<< "$phelp$help" && fail "--help shows the source tree $src"
grep -qF "$build" <<< "$phelp$help" && fail "--help shows the build tree $build"

predict() {
  "$1/bin/vitsim" predict --cluster "$1/share/vitsim/platforms/tesla.json" --costs "$d/costs.json" \
    --gpus 1 --micro-batch 16 "${@:2}"
}
out=$(predict "$p" 2>&1) || fail "installed predict failed: $out"
grep -q "epoch" <<< "$out" || fail "no prediction: $out"

mv "$p" "$d/moved"
out=$(predict "$d/moved" 2>&1) || fail "moved predict failed: $out"
grep -qF "Here: $d/moved/share/vitsim" <<< "$("$d/moved/bin/vitsim" --help)" ||
  fail "the moved binary does not find its data"

out=$(VITSIM_DATA="$d/nowhere" predict "$d/moved" 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "VITSIM_DATA to nowhere: exit $rc, expected 2: $out"
grep -qF "$d/nowhere/platforms/" <<< "$out" || fail "error names no file: $out"
echo "install_test: ok"
