#!/usr/bin/env bash
# The hit-rich cudp-hmmsearch benchmark in one device call: the long models (bench/make_long_models.py) with 300
# hmmemit samples of each planted in the 570,000-sequence database, so that every search reports hundreds of
# domains, then each model searched by cudp-hmmsearch (one-shot and twice in the daemon) beside hmmsearch --cpu 16
# in the same run (bench/device.sh with E2E_ONLY=1). With TESTS=1 the GPU tests of cudp-hmmsearch run first
# (parsers, envelopes, the oracles against hmmsearch 3.3.2, the daemons) and compute-sanitizer runs on the
# envelope kernels' small case and on parsers called off.
# Usage (repo root, on the GPU machine, carrying .debs/ with hmmer, hmmer-examples, libdivsufsort3, catch2):
#   [TESTS=1] [MODELS="20aa fn3 ... long3000"] bench/hmmsearch_hit_rich.sh      results under $OUT
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
export OUT
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
eval "$(bash bench/unpack_debs.sh .debs /tmp/cputools 2>/dev/null | grep '^export')"
EX=/tmp/cputools/usr/share/doc/hmmer/examples

if [ "${TESTS:-0}" = 1 ]; then
  t0=$(date +%s)
  TESTS=1 BENCH=0 SANITIZE=0 \
    TEST_REGEX="device_plan7_parsers_test|device_envelopes_test|hmmsearch_gpu_memory|daemon.*_cuda|hmmsearch_vs_hmmsearch_.*_cuda|phmmer_vs_phmmer_.*_cuda|hmmscan_vs_hmmscan_.*_cuda" \
    bash bench/hmmsearch_stream.sh >/dev/null 2>&1
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  for tool in memcheck racecheck synccheck; do
    timeout 200 "$cs" --tool $tool --error-exitcode 9 build-gpu/tests/hmmer/device_envelopes_test "[small]" \
      >"$OUT/sanitizer-envelopes-$tool.log" 2>&1
    log "compute-sanitizer $tool, envelope rescoring: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-envelopes-$tool.log" | tr '\n' ' ')"
    timeout 200 "$cs" --tool $tool --error-exitcode 9 build-gpu/tests/hmmer/device_plan7_parsers_test \
      "Device parsers called off*" >"$OUT/sanitizer-called-off-$tool.log" 2>&1
    log "compute-sanitizer $tool, device parsers called off: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-called-off-$tool.log" | tr '\n' ' ')"
  done
  log "tests and sanitizers: $(($(date +%s) - t0)) s"
fi

mkdir -p /tmp/long /tmp/models
python3 bench/make_long_models.py "$EX" /tmp/long >"$OUT/long-models.log" 2>&1 || { log "long models failed"; exit 1; }
models=()
for name in ${MODELS:-20aa fn3 2OG-FeII_Oxy_3 Pkinase LuxC Patched SMC_N long2000 long2700 long3000}; do
  case $name in
    long*) models+=("/tmp/long/$name.hmm") ;;
    *) f=$(ls "$EX"/*/"$name".hmm* | head -1); zcat -f "$f" >"/tmp/models/$name.hmm"; models+=("/tmp/models/$name.hmm") ;;
  esac
done
E2E_ONLY=1 HMM_MODELS="${models[*]}" PLANT_HMM="/tmp/long/long2000.hmm /tmp/long/long2700.hmm /tmp/long/long3000.hmm" \
  bash bench/device.sh >/dev/null 2>&1
cat "$OUT/summary.txt"
