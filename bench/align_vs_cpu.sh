#!/usr/bin/env bash
# Linear-space alignment on the GPU beside the CPU tools, in one run on the same data: a generated DNA pair (a random
# query and a mutated copy, +2/-3, a gap of k costing 5 + 2k) aligned globally by cudp (levels on the GPU) and by
# EMBOSS stretcher (Myers-Miller on one core) and parasail (score only, one core: both tools take one pair on one
# core), then the GPU regimes on their own (one long pair, batches). Results under $OUT.
#
#   bench/align_vs_cpu.sh BUILD_DIR CPU_TOOLS_DIR
#
# CPU_TOOLS_DIR holds emboss-slim.tar.gz (stretcher, its libraries, ACD files and small data files, cut from the
# emboss, emboss-lib and emboss-data packages, whose data alone is 61 MB, plus the shared libraries ldd lists for
# stretcher on a machine where emboss is installed) and the .deb files of parasail, libparasail8 and libgomp1:
# bench/make_align_tools.sh makes it.
set -uo pipefail
build=$1 tools=$2
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
cpu=/tmp/cpu-align
mkdir -p "$cpu"
tar xzf "$tools/emboss-slim.tar.gz" -C "$cpu"
for deb in "$tools"/*.deb; do dpkg -x "$deb" "$cpu"; done
export PATH="$cpu/usr/bin:$cpu/usr/lib/emboss:$PATH"
export LD_LIBRARY_PATH="$cpu/usr/lib/x86_64-linux-gnu:$cpu/usr/lib/emboss/lib:$cpu/usr/lib:${LD_LIBRARY_PATH:-}"
export EMBOSS_DATA="$cpu/usr/share/EMBOSS/data" EMBOSS_ACDROOT="$cpu/usr/share/EMBOSS/acd"
bench=$build/bench/cudp-row-passes-bench
log() { echo "$*" | tee -a "$OUT/align_vs_cpu.txt"; }
log "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null), host cores: $(nproc)"

# EMBOSS matrix file for +2/-3 over ACGT (N scores -3 against everything).
cat > "$cpu/EDNA23" <<'EOF'
   A  C  G  T  N
A  2 -3 -3 -3 -3
C -3  2 -3 -3 -3
G -3 -3  2 -3 -3
T -3 -3 -3  2 -3
N -3 -3 -3 -3 -3
EOF

# parasail_aligner takes a readable stdin (even /dev/null) as a third input and refuses to run: an empty FIFO held
# open instead (as tests/oracle/parasail_scores.sh does).
mkfifo "$cpu/stdin" 2>/dev/null
exec 3<> "$cpu/stdin"
for length in 10000 50000; do
  pair=/tmp/pair$length
  log "$("$bench" align $length --fasta=$pair)"
  # EMBOSS: a gap of length k costs gapopen + (k - 1) gapextend, so 5 + 2k is gapopen 7, gapextend 2.
  start=$(date +%s%N)
  stretcher -asequence $pair.query.fa -bsequence $pair.target.fa -datafile "$cpu/EDNA23" -gapopen 7 -gapextend 2 \
    -outfile $pair.stretcher >"$OUT/stretcher-$length.log" 2>&1
  log "stretcher $length x $length (one core): $(( ($(date +%s%N) - start) / 1000000 )) ms, $(grep -m1 '# Score' $pair.stretcher 2>/dev/null || tail -2 "$OUT/stretcher-$length.log")"
  # parasail: open includes the first extension, so 5 + 2k is -o 7 -e 2; nw_striped_32 is score only.
  start=$(date +%s%N)
  parasail_aligner -a nw_striped_32 -d -M 2 -X 3 -o 7 -e 2 -t 1 -x -f $pair.target.fa -q $pair.query.fa \
    -g $pair.parasail.csv <&3 >"$OUT/parasail-$length.log" 2>&1
  log "parasail nw_striped_32 $length x $length (one core): $(( ($(date +%s%N) - start) / 1000000 )) ms, $(tail -1 $pair.parasail.csv 2>/dev/null || tail -2 "$OUT/parasail-$length.log")"
done

log "$("$bench" long 1000000 1000000 2)"
log "$("$bench" align 1000000 --leaf=4096)"
log "$("$bench" align 1000000)"
log "$("$bench" batch 100000 100 1000 protein --leaf=4096)"
log "$("$bench" batch 10000 1000 10000 dna --leaf=4096)"
log "$("$bench" batch 2000 100 1000 protein --leaf=4096 --check)"
