#!/usr/bin/env bash
# Fills DIR (default .debs-align) with what bench/align_vs_cpu.sh runs on the GPU machine, which has no package
# registry: emboss-slim.tar.gz (EMBOSS's stretcher, needle and water with their libraries, ACD files and the small
# data files; the emboss-data package alone is 61 MB, too much to carry) and the parasail .debs. Run it where apt
# works and emboss is installed (its shared libraries are copied from this machine, as ldd finds them).
set -euo pipefail
dir=$(mkdir -p "${1:-.debs-align}" && cd "${1:-.debs-align}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download emboss emboss-lib emboss-data >/dev/null)
(cd "$dir" && apt-get download parasail libparasail8 libgomp1 >/dev/null)
root=$work/root
for deb in "$work"/*.deb; do dpkg -x "$deb" "$root"; done
mkdir -p "$root/usr/lib/x86_64-linux-gnu"
LD_LIBRARY_PATH=$root/usr/lib/emboss/lib ldd "$root/usr/lib/emboss/stretcher" | awk '$3 ~ /^\// {print $3}' |
  grep -vE 'libc\.so|libm\.so|libstdc|libgcc_s|ld-linux|/emboss/' | xargs -I{} cp -L {} "$root/usr/lib/x86_64-linux-gnu/"
(cd "$root" && tar czf "$dir/emboss-slim.tar.gz" usr/lib usr/share/EMBOSS/acd usr/bin/stretcher usr/bin/needle \
  usr/bin/water $(find usr/share/EMBOSS/data -maxdepth 1 -type f -size -300k | grep -v '\.obo$'))
du -sh "$dir"
