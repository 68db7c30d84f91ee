#!/usr/bin/env bash
# The include layering of include/cudp (docs/architecture.md): the generic folders (host, lanes, recurrences, tiers,
# engine, io, bio) include nothing from the modules built on them (hmmer/, align/, phylo/), io/ includes no Plan7 header,
# host/ (the host runtime utilities) includes no other folder of include/cudp (config.hpp is fine), io/ and tiers/
# do not include each other, and the folders include each other without a cycle (io -> bio/alphabet.hpp is fine as
# long as bio never includes io).
# Usage: layering_test.sh [include/cudp directory]; exits non-zero and names each offending include.
set -euo pipefail
root=${1:-"$(dirname "$0")/../include/cudp"}
root=$(cd "$root" && pwd)
generic="host lanes recurrences tiers engine io bio"
failures=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

# The node of a file: its folder under include/cudp, or the file itself for the top-level headers (config.hpp).
node_of() {
  case "$1" in
    */*) echo "${1%%/*}" ;;
    *) echo "$1" ;;
  esac
}

while IFS= read -r file; do
  rel=${file#"$root"/}
  dir=$(dirname "$rel")
  from=$(node_of "$rel")
  # Quoted includes resolve against the including file's folder; <cudp/...> against include/.
  while IFS= read -r target; do
    case "$target" in
      cudp/*) resolved=${target#cudp/} ;;
      *)
        if [ "$dir" = . ]; then path=$root/$target; else path=$root/$dir/$target; fi
        resolved=$(realpath -m --relative-to="$root" "$path")
        ;;
    esac
    case "$resolved" in
      ../*) continue ;;  # outside include/cudp
    esac
    to=$(node_of "$resolved")
    [ "$from" != "$to" ] && echo "$from $to $rel $resolved" >>"$edges"
    for g in $generic; do
      if [ "$from" = "$g" ] && { [ "$to" = hmmer ] || [ "$to" = align ] || [ "$to" = phylo ]; }; then
        echo "layering: $rel includes $resolved: generic $g/ must not depend on the $to/ module" >&2
        failures=$((failures + 1))
      fi
    done
    if [ "$from" = io ] && [[ "$resolved" == bio/plan7* ]]; then
      echo "layering: $rel includes $resolved: io/ must not depend on Plan7 profiles" >&2
      failures=$((failures + 1))
    fi
    if [ "$from" = host ] && [ "$to" != host ] && [ "$to" != config.hpp ]; then
      echo "layering: $rel includes $resolved: host/ holds runtime utilities and includes no other cudp folder" >&2
      failures=$((failures + 1))
    fi
    if { [ "$from" = io ] && [ "$to" = tiers ]; } || { [ "$from" = tiers ] && [ "$to" = io ]; }; then
      echo "layering: $rel includes $resolved: io/ and tiers/ sit side by side and do not include each other" >&2
      failures=$((failures + 1))
    fi
  done < <(sed -n -E -e 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1/p' \
                  -e 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<(cudp\/[^>]*)>.*/\1/p' "$file")
done < <(find "$root" -type f \( -name '*.hpp' -o -name '*.cuh' \) | sort)

# Folder-level cycles (io <-> bio, engine <-> hmmer, ...): tsort reports a loop.
if ! cut -d' ' -f1,2 "$edges" | sort -u | tsort >/dev/null 2>"$edges.err"; then
  echo "layering: the folders of include/cudp include each other in a cycle:" >&2
  cat "$edges.err" >&2
  for pair in $(cut -d' ' -f1,2 "$edges" | sort -u | tr ' ' ':'); do
    a=${pair%%:*}
    b=${pair##*:}
    if grep -q "^$b $a " "$edges"; then
      grep "^$a $b " "$edges" | awk '{print "  " $3 " -> " $4}' >&2
    fi
  done
  failures=$((failures + 1))
fi
rm -f "$edges.err"

if [ "$failures" -ne 0 ]; then
  echo "layering: $failures problem(s)" >&2
  exit 1
fi
echo "layering: $(cut -d' ' -f1,2 "$edges" | sort -u | wc -l) folder dependencies, no cycle, no generic folder includes hmmer/, align/ or phylo/, host/ includes no other folder"
