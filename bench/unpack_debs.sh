#!/usr/bin/env bash
# Unpacks every .deb in DIR into DEST without installing anything (no root, no package database), for machines
# without a package registry, e.g. the GPU box that runs the oracles next to the benchmarks. Prints the exports that
# make the unpacked tools runnable, so that
#
#   eval "$(bench/unpack_debs.sh .debs /tmp/oracles)"
#   ssearch36 -help; parasail_aligner -h
#
# works. The .debs are fetched on a machine with apt:  apt-get download fasta3 parasail libparasail8 libgomp1 ncbi-data
# Everything but the exports goes to stderr.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 DIR DEST" >&2
  exit 2
fi
dir=$1
mkdir -p "$2"
dest=$(cd "$2" && pwd)

shopt -s nullglob
debs=("$dir"/*.deb)
if [[ ${#debs[@]} -eq 0 ]]; then
  echo "$0: no .deb files in $dir" >&2
  exit 1
fi

extract() {  # deb
  if command -v dpkg-deb > /dev/null; then
    dpkg-deb -x "$1" "$dest"
    return
  fi
  # No dpkg: a .deb is an ar archive whose data.tar.* holds the files.
  command -v ar > /dev/null || { echo "$0: need dpkg-deb or ar to unpack $1" >&2; exit 1; }
  local member
  member=$(ar t "$1" | grep '^data\.tar') || { echo "$0: $1 has no data.tar member" >&2; exit 1; }
  case $member in
    *.xz) ar p "$1" "$member" | tar -xJ -C "$dest" ;;
    *.zst) ar p "$1" "$member" | zstd -dc | tar -x -C "$dest" ;;
    *.gz) ar p "$1" "$member" | tar -xz -C "$dest" ;;
    *) ar p "$1" "$member" | tar -x -C "$dest" ;;
  esac
}

for deb in "${debs[@]}"; do
  echo "unpacking $(basename "$deb")" >&2
  extract "$deb"
done

# Library directories are whatever the packages brought, so a new dependency needs no edit here.
libdirs=$(find "$dest" \( -name '*.so' -o -name '*.so.*' \) -printf '%h\n' 2> /dev/null | sort -u | paste -sd: -)

echo "export PATH=\"$dest/usr/bin:$dest/bin\${PATH:+:\$PATH}\""
[[ -n $libdirs ]] && echo "export LD_LIBRARY_PATH=\"$libdirs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
# Matrices for tests/oracle/*_scores.sh (package ncbi-data).
[[ -d $dest/usr/share/ncbi/data ]] && echo "export CUDP_NCBI_DATA=\"$dest/usr/share/ncbi/data\""
exit 0
