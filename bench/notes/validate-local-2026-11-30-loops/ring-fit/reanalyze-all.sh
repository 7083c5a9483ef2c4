# reanalyze-all.sh: the seven loops of 2026-11-29/30 calibrated, simulated and validated again
# with build/bin/vitsim (link fits by ring shape), from the same inputs as before: loops a, r, w,
# x and y from their start-time-patched inputs (../process-spread/reanalyze-all.sh, /tmp/rean/*-in),
# z and z2 as measured (/tmp/vl03-a, /tmp/vl03-b). Writes /tmp/rean/LOOP-ring and prints, per
# loop, each row's error before (the loop's own or the process-spread re-analysis) and after.
set -eu
R=/work/main/bench/notes/validate-local-2026-11-30-loops/relaunch-spread/reanalyze.sh
for l in vl30-a vl01-a vl01-b vl02-a vl02-b vl03-a vl03-b; do
  case $l in vl03-*) in=/tmp/$l before=/tmp/$l/validation.txt ;;
             *) in=/tmp/rean/$l-in before=/tmp/rean/$l-rng/validation.txt ;; esac
  bash "$R" "$in" /tmp/rean/$l-ring
  python3 "$(dirname "$0")/compare.py" "$l" "$before" /tmp/rean/$l-ring/validation.txt
done
