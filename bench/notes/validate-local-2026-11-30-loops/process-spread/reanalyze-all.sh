# reanalyze-all.sh: the five loops of 2026-11-29/30 calibrated, simulated and validated again with
# build/bin/vitsim, as measured (`base`: their profiles have no started_utc, so no process spread)
# and with each pass's profiles given a start time (`rng`, patch.py), the runs and scenarios as
# they were. Needs the loops' folders in /tmp (/tmp/vl30-a, /tmp/vl01-a, /tmp/vl01-b, /tmp/vl02-a,
# /tmp/vl02-b: loops a, r, w, x, y).
set -eu
R=/work/main/bench/notes/validate-local-2026-11-30-loops/relaunch-spread/reanalyze.sh
H=$(dirname "$0")
for l in vl30-a vl01-a vl01-b vl02-a vl02-b; do
  python3 "$H/patch.py" /tmp/$l /tmp/rean/$l-in
  for x in scenario-emulated-100mbit.json scenario-emulated-400mbit-slow.json scenario-emulated-400mbit.json runs; do
    ln -sfn /tmp/$l/$x /tmp/rean/$l-in/$x
  done
  bash "$R" /tmp/$l /tmp/rean/$l-base
  bash "$R" /tmp/rean/$l-in /tmp/rean/$l-rng
done
