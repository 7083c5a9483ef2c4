# Shared by slowed-ab.sh, neighbour-ab.sh and micro-batch-shape.sh (sourced, from the repository
# root): the binaries, validate-local's model, and the profile pass as validate-local runs it.
B=$PWD/build/bin
M="--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10"
# Writes FILE, the script each emulated host of a profile pass runs (host k = OMPI rank k, on CPU
# k mod 2): 0 = the 0.4-CPU device in fp32, 1 = the 0.2-CPU device in fp32, 2 = the 0.4-CPU device
# in REGIME (validate-local: ds-bf16), each with the profile options OPTIONS, into $OUTP/pK.json.
# Hosts done early keep profiling, thrown away, until every host is done (as validate-local's
# passes).
pass_script() {  # FILE OPTIONS REGIME
  cat > "$1" <<S
k=\$OMPI_COMM_WORLD_RANK
case \$k in
0) cmd="$B/vitsim-train profile $2 --precision fp32 --device-id emu-cpu-40" ;;
1) cmd="$B/vitsim-train profile $2 --precision fp32 --device-id emu-cpu-20" ;;
2) cmd="$B/vitsim-train profile $2 --precision $3 --device-id emu-cpu-40" ;;
esac
\$cmd --out \$OUTP/p\$k.json > \$OUTP/log\$k.txt 2>&1
touch \$OUTP/done\$k
until [[ -e \$OUTP/done0 && -e \$OUTP/done1 && -e \$OUTP/done2 ]]; do
  \$cmd --out \$OUTP/again\$k.json > /dev/null 2>&1 &
  pid=\$!
  while kill -0 \$pid 2>/dev/null && ! [[ -e \$OUTP/done0 && -e \$OUTP/done1 && -e \$OUTP/done2 ]]; do sleep 0.2; done
  kill \$pid 2>/dev/null; wait \$pid 2>/dev/null
done
exit 0
S
}
