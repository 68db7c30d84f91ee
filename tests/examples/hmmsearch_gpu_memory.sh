#!/usr/bin/env bash
# cudp-hmmsearch when the database does not fit in the GPU memory it may use (CUDP_GPU_MEMORY_MB below the
# database): --backend auto says so and searches on the host, with the host's tables; --backend cuda fails with a
# message naming the sizes and leaves no output. Without the cap the GPU is used and nothing is said.
# Usage: hmmsearch_gpu_memory.sh CUDP_HMMSEARCH HMMER_EXAMPLES_DIR
set -euo pipefail
hmmsearch=$1
examples=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
model=$examples/tutorial/globins4.hmm
db=$examples/tutorial/globins45.fa
fail() { echo "FAIL: $*"; exit 1; }

"$hmmsearch" --backend host --tblout "$work/host.tbl" "$model" "$db" >/dev/null
CUDP_GPU_MEMORY_MB=1 "$hmmsearch" --backend auto --tblout "$work/auto.tbl" "$model" "$db" >/dev/null 2>"$work/auto.err"
grep -q "GPU memory and 1 MiB are available: searching on the host" "$work/auto.err" || fail "no fallback note: $(cat "$work/auto.err")"
diff <(grep -v '^#' "$work/host.tbl") <(grep -v '^#' "$work/auto.tbl") || fail "fallback tables differ from the host's"

if CUDP_GPU_MEMORY_MB=1 "$hmmsearch" --backend cuda --tblout "$work/cuda.tbl" "$model" "$db" >/dev/null 2>"$work/cuda.err"; then
  fail "--backend cuda ran with too little GPU memory"
fi
grep -q "^cudp-hmmsearch: --backend cuda: the database needs about" "$work/cuda.err" || fail "unclear error: $(cat "$work/cuda.err")"
[ ! -e "$work/cuda.tbl" ] || fail "--backend cuda left an output file"

"$hmmsearch" --backend auto --tblout "$work/gpu.tbl" "$model" "$db" >/dev/null 2>"$work/gpu.err"
! grep -q "searching on the host" "$work/gpu.err" || fail "the GPU was not used without the cap"
diff <(grep -v '^#' "$work/host.tbl") <(grep -v '^#' "$work/gpu.tbl") || fail "GPU tables differ from the host's"
echo "ok: fallback to the host, a clear --backend cuda error, the GPU used without the cap"
