#!/usr/bin/env bash
# cudp-msa on a large emitted family (default 100,000 sequences from fn3.hmm, about 87 residues each, five billion
# pairs) on the GPU machine: the run's progress lines (through a pseudo-terminal), its host memory and the GPU's
# sampled every 5 s, and /usr/bin/time's peak, so that a run stopped by CAP still shows how far each stage got and
# what it held. Builds cudp-msa (sm_90) unless CUDP_MSA names one; hmmemit from .debs-msa or the system.
#
#   OUT=out N=100000 CAP=540 bash bench/msa_large.sh
#
# MODEL (default fn3.hmm of hmmer-examples, from .debs/hmmer-examples-slim.tar.gz), THREADS (default all cores),
# BACKEND (default cuda). PHASE=tree makes and writes the guide tree only (pairwise stage and neighbour-joining),
# PHASE=align aligns on that tree (-USETREE), so that a run longer than one call goes in two on the same machine.
set -uo pipefail
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"; t0=$SECONDS
N=${N:-100000}; CAP=${CAP:-540}; THREADS=${THREADS:-$(nproc)}
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null); cores $(nproc)" |
  tee "$OUT/summary.txt"
ls .debs-msa/*.deb >/dev/null 2>&1 && eval "$(bash bench/unpack_debs.sh .debs-msa /tmp/msa-tools 2>/dev/null)"
model=${MODEL:-/tmp/msa-data/usr/share/doc/hmmer/examples/tutorial/fn3.hmm}
if [ ! -f "$model" ] && [ -f .debs/hmmer-examples-slim.tar.gz ]; then
  mkdir -p /tmp/msa-data && tar xzf .debs/hmmer-examples-slim.tar.gz -C /tmp/msa-data
fi
[ -f "$model" ] || { echo "msa_large.sh: no model $model"; exit 2; }
mkdir -p /tmp/msa-large
in=/tmp/msa-large/e$N.fa
[ -s "$in" ] || hmmemit -N "$N" --seed 1 -o "$in" "$model" &
msa=${CUDP_MSA:-}
if [ -z "$msa" ]; then
  prefix=()
  if ls .debs/catch2_2*.deb >/dev/null 2>&1; then
    mkdir -p /tmp/catch2 && dpkg -x .debs/catch2_2*.deb /tmp/catch2 && prefix=(-DCMAKE_PREFIX_PATH=/tmp/catch2/usr)
  fi
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix[@]}" \
    >"$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; exit 1; }
  cmake --build build-gpu -j"$(nproc)" --target cudp-msa >"$OUT/build.log" 2>&1 ||
    { grep error "$OUT/build.log" | head; exit 1; }
  msa=build-gpu/bin/cudp-msa
fi
wait
awk '/^>/{n++; next} {l+=length($0)} END {printf "input: %d sequences, %d residues, mean %.1f\n", n, l, l/n}' "$in" |
  tee -a "$OUT/summary.txt"
start=$SECONDS
( while sleep 5; do
    pid=$(pgrep -x cudp-msa | head -1)
    [ -n "$pid" ] && echo "$((SECONDS - start)) s rss $(awk '/VmRSS/{print $2}' /proc/$pid/status 2>/dev/null) kB" \
      "gpu $(nvidia-smi --query-gpu=memory.used --format=csv,noheader 2>/dev/null)"
  done ) >"$OUT/memory.log" 2>&1 &
sampler=$!
cmd="CUDP_STAGE_TIMES=1 /usr/bin/time -v -o $OUT/time.txt timeout $CAP $msa --backend ${BACKEND:-cuda}"
cmd+=" --threads $THREADS"
case ${PHASE:-all} in
  all) cmd+=" $in -o /tmp/msa-large/e$N.aln --guidetree-out /tmp/msa-large/e$N.dnd" ;;
  tree) cmd+=" -INFILE=$in -NEWTREE=/tmp/msa-large/e$N.dnd" ;;  # clustalw's -NEWTREE without -ALIGN: the tree only
  align) cmd+=" $in -o /tmp/msa-large/e$N.aln --usetree /tmp/msa-large/e$N.dnd" ;;
  *) echo "msa_large.sh: PHASE must be all, tree or align"; exit 2 ;;
esac
if command -v script >/dev/null; then
  script -qfc "$cmd" /dev/null >"$OUT/run.log" 2>&1
else
  bash -c "$cmd" >"$OUT/run.log" 2>&1
fi
echo "run: rc=$? after $((SECONDS - start)) s (cap $CAP s)" | tee -a "$OUT/summary.txt"
kill $sampler 2>/dev/null
# Each progress line's last state, then the stage times when the run finished.
tr '\r' '\n' <"$OUT/run.log" | grep -v '^$' | awk '{ key = $0; sub(/: [0-9]+ of .*/, "", key)
  if (key != last && prev != "") print prev; last = key; prev = $0 } END { print prev }' | tee -a "$OUT/summary.txt"
grep -E "Maximum resident|Elapsed" "$OUT/time.txt" | tee -a "$OUT/summary.txt"
[ -s /tmp/msa-large/e$N.aln ] && ls -la /tmp/msa-large/e$N.aln | tee -a "$OUT/summary.txt"
[ -s /tmp/msa-large/e$N.dnd ] && gzip -c /tmp/msa-large/e$N.dnd >"$OUT/e$N.dnd.gz"
echo "done at $((SECONDS - t0)) s" | tee -a "$OUT/summary.txt"
