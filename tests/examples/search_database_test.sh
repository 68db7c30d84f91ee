#!/usr/bin/env bash
# examples/search_database against cudp-swsearch on the bundled data: each query's best target and score, the same
# (both break ties in database order).
# Usage: search_database_test.sh SEARCH_DATABASE CUDP_SWSEARCH DATA_DIR
set -euo pipefail
example=$1 swsearch=$2 data=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$example" "$data/queries.fa" "$data/db.fa.gz" >"$work/example.tsv"
"$swsearch" --query "$data/queries.fa" --db "$data/db.fa.gz" --top 1 --backend host |
  awk -F'\t' '!/^#/ {print $1 "\t" $2 "\t" $3}' >"$work/swsearch.tsv"
[ -s "$work/example.tsv" ] || { echo "search_database printed nothing" >&2; exit 1; }
if ! diff "$work/example.tsv" "$work/swsearch.tsv"; then
  echo "search_database and cudp-swsearch disagree" >&2
  exit 1
fi
echo "search_database: $(wc -l <"$work/example.tsv") queries, best hits equal to cudp-swsearch's"
