#!/usr/bin/env bash
# The layering of the applications (apps/, examples/ if present, bench/) over the library (docs/architecture.md):
#  (a) no application or benchmark uses a `detail` name, the library's or its own: what an application needs from the
#      library is public API, so the library can change its internals freely. Caught: `detail::` in code, a
#      `namespace detail`, `namespace ...::detail`, `using namespace ...::detail` and a namespace alias of one;
#      comments and string literals do not count;
#  (b) an application family (a top-level folder of apps/: kit, swsearch, makedb, hmmer, align, ...) includes its own
#      files (relative, or "<family>/..."), the shared kit ("kit/...") and the library (<cudp/...>), never another
#      family's files; kit/ includes only kit files.
# Usage: apps_layering_test.sh [repository root]; exits non-zero and names each offending file:line.
set -euo pipefail
root=${1:-"$(dirname "$0")/.."}
root=$(cd "$root" && pwd)
failures=0
found=$(mktemp)
trap 'rm -f "$found"' EXIT

# The C/C++/CUDA sources under a folder.
sources() {
  [ -d "$1" ] || return 0
  find "$1" -type f \( -name '*.cpp' -o -name '*.cc' -o -name '*.cxx' -o -name '*.c' -o -name '*.h' -o -name '*.hpp' \
                       -o -name '*.cu' -o -name '*.cuh' -o -name '*.inl' \) | sort
}

# The file with its comments and the contents of its string and character literals blanked, line for line.
code_only() {
  awk '
    BEGIN { block = 0 }
    {
      line = $0; out = ""; n = length(line); i = 1
      while (i <= n) {
        c = substr(line, i, 1); two = substr(line, i, 2)
        if (block) {
          if (two == "*/") { block = 0; out = out "  "; i += 2 } else { out = out " "; i++ }
          continue
        }
        if (two == "//") break
        if (two == "/*") { block = 1; out = out "  "; i += 2; continue }
        if (c == "\"" || c == "\047") {
          quote = c; out = out c; i++
          while (i <= n) {
            c = substr(line, i, 1)
            if (c == "\\") { out = out "  "; i += 2; continue }
            if (c == quote) break
            out = out " "; i++
          }
          if (i <= n) { out = out quote; i++ }
          continue
        }
        out = out c; i++
      }
      print out
    }' "$1"
}

# (a) detail names in code.
for dir in apps examples bench; do
  while IFS= read -r file; do
    rel=${file#"$root"/}
    code_only "$file" |
      grep -n -E -e '(^|[^[:alnum:]_])detail[[:space:]]*::' \
                 -e '(^|[^[:alnum:]_])namespace[[:space:]]+([[:alnum:]_]+[[:space:]]*::[[:space:]]*)*detail([^[:alnum:]_]|$)' \
                 -e '=[[:space:]]*(::)?([[:alnum:]_]+[[:space:]]*::[[:space:]]*)*detail[[:space:]]*;' |
      while IFS=: read -r line text; do
        echo "apps layering: $rel:$line uses a detail name (make what it needs public API): $(echo "$text" | sed -E 's/^[[:space:]]+//')"
      done >>"$found" || true
  done < <(sources "$root/$dir")
done

# (b) includes across application families. A quoted include resolves against the including file's folder first,
# then against apps/ (the include directory the applications are built with); an angle include that names a file
# under apps/ is treated the same.
if [ -d "$root/apps" ]; then
  while IFS= read -r file; do
    rel=${file#"$root"/apps/}
    case "$rel" in
      */*) family=${rel%%/*} ;;
      *) continue ;;  # a file directly in apps/ belongs to no family
    esac
    dir=$(dirname "$file")
    while IFS=: read -r line target; do
      if [ -f "$dir/$target" ]; then
        resolved=$(realpath -m --relative-to="$root/apps" "$dir/$target")
      elif [ -f "$root/apps/$target" ]; then
        resolved=$(realpath -m --relative-to="$root/apps" "$root/apps/$target")
      else
        continue  # not an application file (the library's, a system or generated header)
      fi
      case "$resolved" in
        ../*) continue ;;  # outside apps/ (the library, by a relative path)
        */*) to=${resolved%%/*} ;;
        *) to=. ;;
      esac
      [ "$to" = "$family" ] && continue
      if [ "$to" = kit ] && [ "$family" != kit ]; then continue; fi
      if [ "$family" = kit ]; then
        echo "apps layering: apps/$rel:$line includes apps/$resolved: kit/ includes only kit files"
      else
        echo "apps layering: apps/$rel:$line includes apps/$resolved: $family/ may include its own files, kit/ and <cudp/...>, not $to/"
      fi >>"$found"
    done < <(grep -n '' "$file" | sed -n -E \
               -e 's/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1:\2/p' \
               -e 's/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*<([^>]*)>.*/\1:\2/p')
  done < <(sources "$root/apps")
fi

if [ -s "$found" ]; then
  cat "$found" >&2
  echo "apps layering: $(wc -l <"$found") problem(s)" >&2
  exit 1
fi
echo "apps layering: no detail names in apps/, examples/ or bench/; every application family includes only itself, kit/ and the library"
