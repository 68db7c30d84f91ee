#!/usr/bin/env bash
# The whole test suite on a machine without a GPU: installs the test dependencies, builds everything (nvcc
# compiles every kernel instantiation for sm_90 when the CUDA toolkit is present), runs the host tests and the
# oracle comparisons, fuzzes the FASTA, HMM, Newick and NEXUS readers for a bounded time, and checks that an
# installed cudp is usable through find_package.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends cmake g++ make python3 zlib1g-dev catch2 fasta3 parasail \
  ncbi-data hmmer hmmer-examples gdb ncbi-blast+ clang libclang-rt-14-dev emboss bowtie2-examples \
  libeigen3-dev libboost-dev iqtree phyml raxml mrbayes libhmsbeagle-dev libhwy-dev libopenmpi-dev openmpi-bin \
  doxygen clustalw >/dev/null

jobs=$(nproc)
build=${CUDP_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDP_REQUIRE_TEST_DATA=ON
cmake --build "$build" -j"$jobs"
ctest --test-dir "$build" -L host --output-on-failure -j"$jobs"

# libFuzzer on the FASTA reader, bounded.
CXX=clang++ cmake -S . -B "$build-fuzz" -DCUDP_ENABLE_CUDA=OFF -DCUDP_FUZZ=ON -DCUDP_BUILD_TESTS=ON \
  -DCUDP_BUILD_APPS=OFF -DCUDP_BUILD_BENCH=OFF >/dev/null
cmake --build "$build-fuzz" --target fuzz_fasta -j"$jobs"
corpus=$(mktemp -d)
"$build-fuzz/tests/io/fuzz_fasta" -max_total_time="${CUDP_FUZZ_SECONDS:-60}" -print_final_stats=1 "$corpus" tests/io/fuzz_corpus
rm -rf "$corpus"
# The same for the HMMER3 profile reader (and the Plan7 configuration of whatever it accepts), for half as long.
cmake --build "$build-fuzz" --target fuzz_hmm_file -j"$jobs"
corpus=$(mktemp -d)
"$build-fuzz/tests/hmmer/fuzz_hmm_file" -max_total_time="$(( (${CUDP_FUZZ_SECONDS:-60} + 1) / 2 ))" -print_final_stats=1 \
  "$corpus" tests/hmmer/fuzz_hmm_corpus
rm -rf "$corpus"
# The phylogenetics readers, Newick trees and alignments (NEXUS, PHYLIP, aligned FASTA), half as long each.
for fuzzer in newick nexus; do
  cmake --build "$build-fuzz" --target "fuzz_$fuzzer" -j"$jobs"
  corpus=$(mktemp -d)
  "$build-fuzz/tests/phylo/fuzz_$fuzzer" -max_total_time="$(( (${CUDP_FUZZ_SECONDS:-60} + 1) / 2 ))" \
    -print_final_stats=1 "$corpus" "tests/phylo/fuzz_${fuzzer}_corpus"
  rm -rf "$corpus"
done

# Install, then build and run a consumer project against the installed package.
prefix=$(mktemp -d)
cmake --install "$build" --prefix "$prefix" >/dev/null
cmake -S tests/package -B "$build-package" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$build-package"
"$build-package/consumer"
rm -rf "$prefix"
echo "cudp: all host tests passed"
