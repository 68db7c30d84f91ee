#!/usr/bin/env bash
# cudp-hmmsearch and the GPU memory it may use (CUDP_GPU_MEMORY_MB). A database larger than that is streamed through
# the GPU in batches, with the tables of a resident database and of the host, for several models in one run (whose
# MSV filters share one pass of the database). Below
# what even streaming needs (256 MiB for the runtime and the models, plus room for the longest targets),
# --backend auto says so and searches on the host, with the host's tables; --backend cuda fails with a message
# naming the sizes and leaves no output. Without the cap the GPU is used and nothing is said.
# Usage: hmmsearch_gpu_memory.sh CUDP_HMMSEARCH HMMER_EXAMPLES_DIR
set -euo pipefail
hmmsearch=$1
examples=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
model=$examples/tutorial/globins4.hmm
db=$examples/tutorial/globins45.fa
fail() { echo "FAIL: $*"; exit 1; }
one_gpu=(--gpus 1)  # the memory of one GPU, on a machine of any number

"$hmmsearch" --backend host --tblout "$work/host.tbl" "$model" "$db" >/dev/null
CUDP_GPU_MEMORY_MB=1 "$hmmsearch" "${one_gpu[@]}" --backend auto --tblout "$work/auto.tbl" "$model" "$db" >/dev/null 2>"$work/auto.err"
grep -q "GPU memory and 1 MiB are available: searching on the host" "$work/auto.err" || fail "no fallback note: $(cat "$work/auto.err")"
diff <(grep -v '^#' "$work/host.tbl") <(grep -v '^#' "$work/auto.tbl") || fail "fallback tables differ from the host's"

if CUDP_GPU_MEMORY_MB=1 "$hmmsearch" "${one_gpu[@]}" --backend cuda --tblout "$work/cuda.tbl" "$model" "$db" >/dev/null 2>"$work/cuda.err"; then
  fail "--backend cuda ran with too little GPU memory"
fi
grep -qE "^cudp-hmmsearch: --backend cuda: (GPU [0-9]+: )?the database needs about" "$work/cuda.err" || fail "unclear error: $(cat "$work/cuda.err")"
[ ! -e "$work/cuda.tbl" ] || fail "--backend cuda left an output file"

"$hmmsearch" "${one_gpu[@]}" --backend auto --tblout "$work/gpu.tbl" "$model" "$db" >/dev/null 2>"$work/gpu.err"
! grep -q "searching on the host" "$work/gpu.err" || fail "the GPU was not used without the cap"
diff <(grep -v '^#' "$work/host.tbl") <(grep -v '^#' "$work/gpu.tbl") || fail "GPU tables differ from the host's"
# About 6 MB of targets (the globins among random sequences): under a cap of 259 MiB the batches hold at most
# 1.5 MiB, so every filter pass runs in several batches, and the Viterbi and Forward passes gather their scattered
# survivors.
big=$work/big.fa
python3 - "$big" "$db" <<'PY'
import random, sys
rng = random.Random(5)
letters = "ACDEFGHIKLMNPQRSTVWY"
with open(sys.argv[1], "w") as f:
    globins = open(sys.argv[2]).read()
    for i in range(24000):
        f.write(">r%d\n%s\n" % (i, "".join(rng.choices(letters, k=rng.randint(50, 450)))))
        if i % 4000 == 0:
            f.write(globins.replace(">", ">c%d_" % i))
PY
models=$work/models.hmm
cat "$model" "$examples/tutorial/fn3.hmm" "$examples/tutorial/Pkinase.hmm" > "$models"
"$hmmsearch" --backend host --tblout "$work/big-host.tbl" --domtblout "$work/big-host.dom" "$models" "$big" >/dev/null
"$hmmsearch" "${one_gpu[@]}" --backend cuda --tblout "$work/big-gpu.tbl" --domtblout "$work/big-gpu.dom" "$models" "$big" \
  >"$work/big-gpu.txt"
CUDP_STAGE_TIMES=1 CUDP_GPU_MEMORY_MB=259 "$hmmsearch" "${one_gpu[@]}" --backend cuda --tblout "$work/big-streamed.tbl" \
  --domtblout "$work/big-streamed.dom" "$models" "$big" >"$work/big-streamed.txt" 2>"$work/big-streamed.err"
# The three models' MSV filters share one pass of the streamed database.
grep -qE "stage msv filter, models at once .*\(1 times\)" "$work/big-streamed.err" ||
  fail "the streamed database was not read once for the three models' MSV filters: $(grep stage "$work/big-streamed.err")"
grep -q "^# cudp backend: .*(database streamed in batches)" "$work/big-streamed.txt" ||
  fail "the capped run did not stream: $(grep '^# cudp backend' "$work/big-streamed.txt")"
! grep -q "streamed" "$work/big-gpu.txt" || fail "the database was streamed without a cap"
rows=$(grep -vc '^#' "$work/big-host.tbl")
[ "$rows" -ge 40 ] || fail "only $rows hits: the comparison tests little"
for kind in tbl dom; do
  diff <(grep -v '^#' "$work/big-host.$kind") <(grep -v '^#' "$work/big-gpu.$kind") ||
    fail "resident GPU $kind differs from the host's"
  diff <(grep -v '^#' "$work/big-host.$kind") <(grep -v '^#' "$work/big-streamed.$kind") ||
    fail "streamed GPU $kind differs from the host's"
done
echo "ok: fallback to the host, a clear --backend cuda error, the GPU used without the cap," \
  "a streamed database ($rows hits of 3 models) with the host's tables"
