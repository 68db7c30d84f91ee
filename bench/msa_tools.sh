# The multiple aligners that bench/msa_peers.sh and bench/msa_seed_accuracy.sh run side by side (sourced by both):
# the packages of .debs-msa unpacked where they are, each tool's command line, and one timed run of a tool.
# The sourcing script sets first: here (this folder), cudp_msa, threads, limit (seconds a run); and, to change a
# tool's mode, MSA_MUSCLE (default -align; -super5 for large sets) and MSA_KALIGN_ARGS.

if ls .debs-msa/*.deb >/dev/null 2>&1; then
  eval "$(bash "$here/unpack_debs.sh" .debs-msa /tmp/msa-peers 2>/dev/null)"
  # mafft's driver script looks for its programs where the package put them, unless told otherwise.
  export MAFFT_BINARIES=/tmp/msa-peers/usr/lib/mafft/lib/mafft
fi

# tool name, then the command (FASTA in $in, alignment to $aln) as one string for bash -c.
msa_tools=(
  "cudp-msa|$cudp_msa \$in -o \$aln --threads $threads ${CUDP_MSA_ARGS:-}"
  "clustalw|clustalw -INFILE=\$in -ALIGN -OUTFILE=\$aln -QUIET"
  "clustalo|clustalo -i \$in -o \$aln --threads $threads --force"
  "mafft|mafft --auto --thread $threads --quiet \$in > \$aln"
  "muscle|muscle ${MSA_MUSCLE:--align} \$in -output \$aln -threads $threads"
  "kalign|kalign -i \$in -o \$aln ${MSA_KALIGN_ARGS:-}"
)

# Whether the program of a tool's command is there.
msa_tool_installed() {
  local bin=${1%% *}
  command -v "$bin" >/dev/null || [ -x "$bin" ]
}

# run_msa_tool COMMAND IN ALN LOG [MEMORY_FILE]: one run under the time limit (peak memory in KiB to MEMORY_FILE when
# given); sets msa_seconds (wall time) and msa_note (empty, "not finished in N s" or "exit N").
run_msa_tool() {
  local start rc
  local timed=()
  [ -n "${5:-}" ] && timed=(/usr/bin/time -f "%M" -o "$5")
  start=$(date +%s.%N)
  in=$2 aln=$3 "${timed[@]}" timeout "$limit" bash -c "$1" >"$4" 2>&1
  rc=$?
  msa_seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  msa_note=""
  [ $rc = 124 ] && msa_note="not finished in $limit s"
  [ $rc != 0 ] && [ $rc != 124 ] && msa_note="exit $rc"
  return 0
}
