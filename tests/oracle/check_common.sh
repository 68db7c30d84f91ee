# Sourced by check_ssearch36.sh and check_parasail.sh, which set `scores` (the scores script under test) and `here`:
# a scratch folder, and the comparison of that script's output with the independent gotoh.py.
gotoh=$here/gotoh.py
python=${PYTHON:-python3}
tmp=$(mktemp -d)
fail=0

# Runs the scores script on $tmp/q.fa x $tmp/t.fa and checks every score and pair of ends with gotoh.py.
check_scores() {  # label matrix open extend [env assignments for the scores script...]
  local label=$1 matrix=$2 gap_open=$3 gap_extend=$4
  shift 4
  if ! env "$@" "$scores" "$tmp/q.fa" "$tmp/t.fa" "$matrix" "$gap_open" "$gap_extend" "$tmp/o.tsv"; then
    echo "FAIL $label: scores script failed"
    fail=1
    return
  fi
  local out
  if out=$("$python" "$gotoh" check "$matrix" "$gap_open" "$gap_extend" "$tmp/q.fa" "$tmp/t.fa" "$tmp/o.tsv"); then
    echo "ok   $label: ${out##*$'\n'}"
  else
    echo "FAIL $label:"
    echo "$out" | head -20
    fail=1
  fi
}

# Every matrix and gap setting, 6 queries x 5 targets = 30 pairs each, a fresh seed each time; leaves `seed` at the
# next unused one for the caller's own data.
check_all_settings() {
  local settings=(
    "BLOSUM62 11 1" "BLOSUM62 10 1" "BLOSUM62 5 2" "BLOSUM62 1 3"
    "BLOSUM45 15 2" "BLOSUM50 10 2" "BLOSUM80 10 1" "PAM250 14 2"
  )
  local s matrix gap_open gap_extend
  seed=1
  for s in "${settings[@]}"; do
    read -r matrix gap_open gap_extend <<< "$s"
    "$python" "$gotoh" pairs "$seed" 6 5 "$tmp/q.fa" "$tmp/t.fa"
    seed=$((seed + 1))
    check_scores "$matrix $gap_open/$gap_extend" "$matrix" "$gap_open" "$gap_extend"
  done
}
