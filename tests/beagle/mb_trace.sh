#!/usr/bin/env bash
# Unmodified MrBayes (mb) on cudp's BEAGLE-compatible library: with the same seeds, the log-likelihood trace of an
# MCMC must be the one mb prints with the reference, generation by generation, as printed.
#
#   mb_trace.sh debian LIBDIR EXAMPLES WORKDIR   Debian's BEAGLE (CPU) against ours (host resource), beagledevice=cpu
#   mb_trace.sh gpu    LIBDIR EXAMPLES WORKDIR   ours with beagledevice=gpu (the CUDA resource) against ours, cpu
#
# LIBDIR holds our libhmsbeagle.so.1, EXAMPLES MrBayes' example files; DEBIAN_BEAGLE_DIR, if set, where Debian's
# libhmsbeagle.so.1 and its plugins were unpacked (the GPU machine has no packages). Each run's log must name the resource that
# was meant to run it, so that a library silently loaded from elsewhere cannot pass. MB (default: mb) and NGEN
# (default: 1000) may be set in the environment.
# The debian mode also compares single precision: the starting state's log-likelihood (generation 0, printed to 7
# digits) in single precision on both libraries against the double one.
set -euo pipefail
mode=$1 libdir=$2 examples=$3 work=$4
mb=${MB:-mb}
ngen=${NGEN:-1000}
[ -f "$libdir/libhmsbeagle.so.1" ] || { echo "no libhmsbeagle.so.1 in $libdir"; exit 1; }
libdir=$(cd "$libdir" && pwd) examples=$(cd "$examples" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cp "$examples"/{primates,cynmix,replicase,avian_ovomucoids}.nex .

# The models: GTR+I+G on one division (per-site likelihoods for the invariable sites), GTR+I+G on three codon
# positions (several BEAGLE instances on the host; one instance with pattern partitions on a GPU), the manual's
# partitioned cynmix (four DNA instances beside MrBayes' own morphology code), the NY98 codon model (61 states,
# three omega classes summed at the root), and protein with a mixture of fixed rate matrices and gamma rates.
# mb drops what follows `execute` on its line, so it ends one.
declare -A body
body[primates]="execute primates.nex;
  lset nst=6 rates=invgamma;"
body[primates_bycodon]="execute primates.nex;
  charset first = 1-898\\3; charset second = 2-898\\3; charset third = 3-898\\3;
  partition bycodon = 3: first, second, third; set partition=bycodon;
  lset applyto=(all) nst=6 rates=invgamma; unlink revmat=(all) shape=(all) pinvar=(all) statefreq=(all);
  prset ratepr=variable;"
body[cynmix]="execute cynmix.nex;
  set partition=favored; lset app=(1) rates=gamma;
  lset app=(2,3,4,5) rates=invgamma nst=6; unlink revmat=(all) pinvar=(all) shape=(all) statefreq=(all);
  prset ratepr=variable;"
body[codon]="execute replicase.nex;
  lset nucmodel=codon omegavar=ny98;"
body[protein]="execute avian_ovomucoids.nex;
  prset aamodelpr=mixed; lset rates=gamma;"

precision=double  # of the runs that follow, and their generations
generations=$ngen
batch() {  # name device
  cat <<EOF
begin mrbayes;
  set autoclose=yes nowarn=yes seed=4711 swapseed=1174;
  set usebeagle=yes beagledevice=$2 beagleprecision=$precision;
  ${body[$1]}
  mcmcp ngen=$generations samplefreq=10 printfreq=100 nruns=1 nchains=1 diagnfreq=$generations filename=$1.$2.$3;
  mcmc;
end;
EOF
}

# run NAME DEVICE TAG LIBRARY_PATH: one mb run, its wall time in $seconds.
run() {
  batch "$1" "$2" "$3" > "$1.$2.$3.nex"
  local start end
  start=$(date +%s.%N)
  if [ -n "$4" ]; then
    LD_LIBRARY_PATH="$4" "$mb" "$1.$2.$3.nex" > "$1.$2.$3.log" 2>&1 || { tail -30 "$1.$2.$3.log"; return 1; }
  else
    # The system's libhmsbeagle.so.1, or DEBIAN_BEAGLE_DIR's where Debian's was unpacked rather than installed.
    env -u LD_LIBRARY_PATH ${DEBIAN_BEAGLE_DIR:+LD_LIBRARY_PATH="$DEBIAN_BEAGLE_DIR"} "$mb" "$1.$2.$3.nex" \
      > "$1.$2.$3.log" 2>&1 || { tail -30 "$1.$2.$3.log"; return 1; }
  fi
  end=$(date +%s.%N)
  seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
}

# The resources a log says ran it, one line each.
resources() { grep "Rsrc Name" "$1" | sed 's/.*Rsrc Name : //' | sort -u; }

# Gen and LnL of every sample, as printed (the .p file's first line is a random run ID).
trace() { awk -F'\t' 'NR > 2 { print $1 "\t" $2 }' "$1"; }

if [ "$mode" = debian ]; then
  a=(cpu debian "") b=(cpu cudp "$libdir")
  want_a="CPU" want_b="CPU (cudp host tier)"
elif [ "$mode" = gpu ]; then
  a=(cpu cudp "$libdir") b=(gpu cudp "$libdir")
  want_a="CPU (cudp host tier)" want_b="(cudp CUDA tiers)"
else
  echo "mode: debian or gpu"
  exit 2
fi

status=0
printf '%-18s %8s %10s %10s %12s\n' example samples "${a[1]}-${a[0]}(s)" "${b[1]}-${b[0]}(s)" "max|dLnL|"
for name in primates primates_bycodon cynmix codon protein; do
  run "$name" "${a[@]}"
  time_a=$seconds
  run "$name" "${b[@]}"
  time_b=$seconds
  log_a="$name.${a[0]}.${a[1]}.log" log_b="$name.${b[0]}.${b[1]}.log"
  got_a=$(resources "$log_a") got_b=$(resources "$log_b")
  if [ "$got_a" != "$want_a" ] || ! grep -q "Rsrc Name" "$log_a"; then
    echo "$name: the reference run used '$got_a', not '$want_a'"
    status=1
  fi
  if [[ "$got_b" != *"$want_b"* ]] || [ "$(echo "$got_b" | wc -l)" -ne 1 ]; then
    echo "$name: the run on cudp used '$got_b', not '$want_b'"
    status=1
  fi
  trace_a=$(trace "$name.${a[0]}.${a[1]}.p") trace_b=$(trace "$name.${b[0]}.${b[1]}.p")
  samples=$(echo "$trace_b" | wc -l)
  diff=$(paste <(echo "$trace_a") <(echo "$trace_b") |
         awk -F'\t' '{ d = $2 - $4; if (d < 0) d = -d; if (d > m) m = d } END { printf "%g", m + 0 }')
  printf '%-18s %8d %10.2f %10.2f %12s\n' "$name" "$samples" "$time_a" "$time_b" "$diff"
  if [ "$trace_a" != "$trace_b" ]; then
    echo "$name: the traces differ (first lines that do):"
    diff <(echo "$trace_a") <(echo "$trace_b") | head -6
    status=1
  fi
  if [ "$samples" -lt $((ngen / 10 + 1)) ]; then
    echo "$name: $samples samples, expected $((ngen / 10 + 1))"
    status=1
  fi
done

# Single precision: ours must print the double value of the starting state to within one printed step (ours is
# about 1e-8 relative from it), and be no further from it than Debian's BEAGLE, which is 1e-6 relative or more
# from it on four of the five, and further than ours on at least one.
if [ "$mode" = debian ]; then
  precision=single generations=10 closer=0
  start() { awk -F'\t' 'NR == 3 { print $2 }' "$1"; }
  printf '%-18s %14s %14s %14s\n' example double debian-single cudp-single
  for name in primates primates_bycodon cynmix codon protein; do
    run "$name" cpu debian-single ""
    run "$name" cpu cudp-single "$libdir"
    for tag in debian-single cudp-single; do
      want=$([ $tag = debian-single ] && echo "$want_a" || echo "$want_b")
      got=$(resources "$name.cpu.$tag.log")
      [ "$got" = "$want" ] || { echo "$name: the $tag run used '$got', not '$want'"; status=1; }
    done
    double=$(start "$name.cpu.cudp.p") theirs=$(start "$name.cpu.debian-single.p")
    ours=$(start "$name.cpu.cudp-single.p")
    printf '%-18s %14s %14s %14s\n' "$name" "$double" "$theirs" "$ours"
    verdict=$(awk -v d="$double" -v t="$theirs" -v o="$ours" 'BEGIN {
      a = d < 0 ? -d : d; step = 10 ^ (int(log(a) / log(10)) - 6)
      eo = o - d; if (eo < 0) eo = -eo; et = t - d; if (et < 0) et = -et
      if (eo > 1.01 * step) print "far"; else if (eo > et) print "behind"
      else if (eo < et) print "closer"; else print "same" }')
    case $verdict in
      far) echo "$name: single precision prints $ours, double $double"; status=1 ;;
      behind)
        echo "$name: single precision is further from double ($ours, $double) than BEAGLE's ($theirs)"
        status=1 ;;
      closer) closer=$((closer + 1)) ;;
    esac
  done
  [ "$closer" -gt 0 ] || { echo "single precision is nowhere closer to double than BEAGLE's"; status=1; }
fi
exit $status
