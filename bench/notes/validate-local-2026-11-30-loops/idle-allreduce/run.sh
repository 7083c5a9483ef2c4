# run.sh: the all-reduce of a step's gradients (3.3 MB) at 4 emulated hosts over 100 Mbit, back to
# back (as validate-local's link benchmark) against after 130 ms of CPU per step (at 0.4 CPU ~325 ms
# of wall time with the sockets idle, as training's compute), alternated.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
E=/work/main/scripts/emulate-cluster P=/work/main/build/bin/emu_probe
for i in 1 2 3; do
  echo "== round $i back-to-back"; $E --hosts 4 --rate 100mbit --cpu 0.4 -- $P allreduce 3300000 20 2>&1 | grep rank=
  echo "== round $i after-idle"; $E --hosts 4 --rate 100mbit --cpu 0.4 -- $P step 130 3300000 20 2>&1 | grep rank=
done
