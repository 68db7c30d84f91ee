#!/usr/bin/env bash
# docs/status.md's "not yet" claims about the tools, held against the tools: while the page says a tool does not do
# something, the tool must refuse it with the message named here. A tool that starts doing it fails this test
# until the page (and this list) follow; a claim dropped from the page drops its check.
#   status_claims.sh STATUS_MD BIN_DIR HMMER_EXAMPLES
set -uo pipefail
status_md=$(realpath "$1") bin=$(realpath "$2") examples=$(realpath "$3")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0 checked=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
globins4=$examples/tutorial/globins4.hmm globins45=$examples/tutorial/globins45.fa query=$examples/tutorial/HBB_HUMAN
printf '>d1\nACGTACGTAAACCCGGGTTT\n>d2\nACGTTTTTGGGGCCCCAAAA\n' > dna.fa
"$bin/cudp-makedb" --dna dna.fa dna.cudpdb 2> /dev/null || fail "cudp-makedb --dna"
printf '\xba\xed\xed\xe8\x80\xc1\x01\x00binary\n' > pressed.h3m
printf 'ID   HBB_HUMAN   Reviewed;   147 AA.\nSQ   SEQUENCE   147 AA;\n     MVHLTPEEKS AVTALWGKVN\n//\n' > query.embl
printf '>a\nACGTACGT\n>b\nACGTACGA\n>c\nACGAACGT\n>d\nTCGTACGT\n' > four.fa
printf '((a:0.1,b:0.1):0.1,(c:0.1,d:0.1):0.1);\n' > four.nwk

# claim CLAIM_TEXT STATUS PATTERN -- COMMAND...: while status.md holds CLAIM_TEXT (a fixed string of one line), the
# command exits with STATUS and says PATTERN on standard error.
claim() {
  local text=$1 status=$2 pattern=$3
  shift 4
  if ! grep -qF -- "$text" "$status_md"; then
    echo "skip: '$text' is no longer claimed"
    return
  fi
  checked=$((checked + 1))
  "$@" > stdout.txt 2> stderr.txt
  local rc=$?
  if [ "$rc" -ne "$status" ] || ! grep -qE -- "$pattern" stderr.txt; then
    fail "status.md says '$text', but '$*' exits $rc with: $(head -2 stderr.txt)"
  else
    echo "ok: '$text': $(head -1 stderr.txt)"
  fi
}

claim "DNA searches (\`cudp-makedb --dna\` databases are refused)" 1 "DNA" -- \
  "$bin/cudp-swsearch" --query "$query" --db dna.cudpdb
claim "**Not yet:** \`--seed 0\`; binary (\`hmmpress\`) model files" 1 "--seed 0 .*not supported" -- \
  "$bin/cudp-hmmsearch" --seed 0 "$globins4" "$globins45"
claim "**Not yet:** \`--seed 0\`; binary (\`hmmpress\`) model files" 1 "binary model file of hmmpress" -- \
  "$bin/cudp-hmmsearch" pressed.h3m "$globins45"
claim "**Not yet:** pressed databases on their own, query formats other than FASTA, \`--seed 0\`" 1 \
  "binary model file of hmmpress" -- "$bin/cudp-hmmscan" pressed.h3m "$query"
claim "**Not yet:** pressed databases on their own, query formats other than FASTA, \`--seed 0\`" 1 \
  "option --qformat: only fasta" -- "$bin/cudp-hmmscan" --qformat embl "$globins4" query.embl
claim "**Not yet:** pressed databases on their own, query formats other than FASTA, \`--seed 0\`" 1 \
  "--seed 0 .*not supported" -- "$bin/cudp-hmmscan" --seed 0 "$globins4" "$query"
claim "**Not yet:** several GPUs in one process (a process takes one GPU); the reverse-complement strand of DNA;" 2 \
  "unknown option --gpus" -- "$bin/cudp-align" --query four.fa --target four.fa --gpus 2
claim "**Not yet:** topology search;" 2 "--optimize takes branches, model or both" -- \
  "$bin/cudp-phylo" evaluate --alignment four.fa --tree four.nwk --model JC --optimize topology
claim "sequences on the GPU machine; input formats other than FASTA;" 1 "not FASTA" -- "$bin/cudp-msa" query.embl
# phmmer.md's own list (the tool page keeps the option-level details).
status_md=$(dirname "$status_md")/phmmer.md
claim "Not there: \`--mxfile\` (a matrix file), \`--seed 0\` (an arbitrary seed)" 1 "--mxfile is not supported" -- \
  "$bin/cudp-phmmer" --mxfile m.txt "$query" "$globins45"
claim "Not there: \`--mxfile\` (a matrix file), \`--seed 0\` (an arbitrary seed)" 1 "--seed 0 .*not supported" -- \
  "$bin/cudp-phmmer" --seed 0 "$query" "$globins45"

[ "$checked" -ge 10 ] || fail "only $checked claims were found in the pages: has their wording changed?"
if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all $checked claims hold"
