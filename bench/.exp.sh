set -uo pipefail
mkdir -p /tmp/catch2 && dpkg -x .debs/catch2_2*.deb /tmp/catch2
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=/tmp/catch2/usr >$OUT/configure.log 2>&1
cmake --build build-gpu -j16 --target cudp-row-passes-bench > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -30; exit 1; }
b=build-gpu/bench/cudp-row-passes-bench
run() { echo "== $*"; timeout 120 $b "$@" 2>&1 | grep -v "^$"; }
{
run batch 10000 1000 10000 dna --leaf=1100000 --checkpoints=4e6 --checkpoint-rows=64 --checkpoint-count=8 --checkpoint-mib=16384
for r in 512 768; do
run batch 10000 1000 10000 dna --leaf=1100000 --checkpoints=4e6 --checkpoint-rows=$r --checkpoint-count=32 --checkpoint-mib=16384
done
run align 100000 --leaf=1100000
run align 100000 --leaf=1100000 --checkpoints=4e6 --checkpoint-rows=768 --checkpoint-mib=16384
run align 1000000 --leaf=1100000 --checkpoints=4e6 --checkpoint-rows=768 --checkpoint-mib=16384
} 2>&1 | tee $OUT/exp.txt
