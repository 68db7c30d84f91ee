#!/usr/bin/env python3
"""Comparisons of cudp-swsearch's TSV with the oracles, for swsearch_vs_ssearch36.sh and swsearch_stats_vs_blastp.sh.

  swsearch_checks.py pairs ORACLE_NAME ORACLE.tsv OURS.tsv QUERY.fa DB.fa
      every (query, target) pair: raw scores, alignment ends, and the order of the rows.
  swsearch_checks.py tie-split ORACLE.tsv
      prints a --top value that cuts through a group of tied scores, or nothing when the data has no such group.
  swsearch_checks.py top ORACLE_NAME ORACLE.tsv FULL.tsv N TOP.tsv
      the rows of a --top N run: the N best oracle scores, ties in database order, identical to the full run's rows.
  swsearch_checks.py searchsp QUERY.fa DB.fa
      query name, then m * N (query length times database residues) for each query.
  swsearch_checks.py stats OURS.tsv BLAST.tsv
      bit scores and E-values against blastp's for the pairs whose raw score is the same in both.
  swsearch_checks.py alignments OURS.tsv QUERY.fa DB.fa MATRIX_FILE OPEN EXTEND
      a run with --alignments: each row's CIGAR, walked over the sequences, gives its score (from the NCBI matrix
      file), its ends, and pident, length, mismatch and gapopen as BLAST defines them.
  swsearch_checks.py tabular OURS.tsv TABULAR.tsv
      the same run in --format tabular: the same rows in BLAST's column order, E-values and bit scores within the
      TSV's values' rounding.

Every failure line names the query, the target (or rank), the column and both values. Exit status 1 on failure.
"""
import math
import sys

SELF_END_LIMIT = 0  # exact self-hits: the full diagonal is the only optimal alignment, so no end may differ
TIED_END_FRACTION = 0.02  # other pairs: tied optimal alignments may legitimately end elsewhere


def fail(problems, limit=20):
    for p in problems[:limit]:
        print("  " + p)
    if len(problems) > limit:
        print(f"  ... and {len(problems) - limit} more")


def read_fasta(path):
    records, name, seq = [], None, []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith(">"):
            if name is not None:
                records.append((name, "".join(seq)))
            words = line[1:].split()
            name, seq = (words[0] if words else ""), []
        elif name is not None:
            seq.append("".join(c for c in line if c.isalpha()).upper())
    if name is not None:
        records.append((name, "".join(seq)))
    return records


def unique_names(records, what):
    names = [n for n, _ in records]
    if len(set(names)) != len(names):
        sys.exit(f"{what}: duplicate sequence names; these checks identify rows by name")
    return names


def read_oracle(path):
    """Oracle lines in query-major file order: {query: [(target, score, ends)]} with targets in database order."""
    blocks = {}
    for line in open(path):
        q, t, s, *ends = line.rstrip("\n").split("\t")
        blocks.setdefault(q, []).append((t, int(s), tuple(None if v == "-" else int(v) for v in ends)))
    return blocks


def read_ours(path):
    """cudp-swsearch TSV rows in output order: (query, target, score, bits, evalue, ends)."""
    rows = []
    for line in open(path):
        if line.startswith("#"):
            continue
        f = line.rstrip("\n").split("\t")
        if len(f) not in (13, 14):
            sys.exit(f"{path}: expected 13 columns (14 with --alignments), got {len(f)}: {line!r}")
        rows.append((f[0], f[1], int(f[2]), f[3], f[4], tuple(int(v) for v in f[5:9])))
    return rows


def ranking(block):
    """The order the output promises: score descending, ties in database order."""
    return sorted(range(len(block)), key=lambda i: (-block[i][1], i))


def check_order(rows, queries, targets, top, label):
    """Rows grouped by query in query file order, min(top, targets) per query, sorted by score then database order."""
    problems = []
    index = {t: i for i, t in enumerate(targets)}
    expected_rows = min(top, len(targets))
    by_query = {}
    order = []
    for r in rows:
        if r[0] not in by_query:
            order.append(r[0])
        by_query.setdefault(r[0], []).append(r)
    if order != [q for q in queries if q in by_query]:
        problems.append(f"{label}: queries out of file order: {order[:5]}...")
    for q in queries:
        got = by_query.get(q, [])
        if len(got) != expected_rows:
            problems.append(f"query {q}: {label}: column rows: cudp {len(got)}, expected {expected_rows}")
        for a, b in zip(got, got[1:]):
            if a[1] not in index or b[1] not in index:
                continue
            if (-a[2], index[a[1]]) >= (-b[2], index[b[1]]):
                problems.append(f"query {q}: {label}: target {b[1]} (score {b[2]}, db #{index[b[1]] + 1}) follows "
                                f"{a[1]} (score {a[2]}, db #{index[a[1]] + 1})")
    return problems


def cmd_pairs(oracle_name, oracle_path, ours_path, query_fa, db_fa):
    queries, targets = read_fasta(query_fa), read_fasta(db_fa)
    qnames, tnames = unique_names(queries, query_fa), unique_names(targets, db_fa)
    oracle = read_oracle(oracle_path)
    rows = read_ours(ours_path)
    ours = {(r[0], r[1]): r for r in rows}
    problems = check_order(rows, qnames, tnames, len(tnames), "full run")
    if len(ours) != len(rows):
        problems.append(f"full run: {len(rows) - len(ours)} duplicate (query, target) rows")

    qseq, tseq = dict(queries), dict(targets)
    pairs = score_bad = missing = 0
    self_hits = self_bad = 0
    other_bad = []
    for q in qnames:
        for t, score, ends in oracle.get(q, []):
            pairs += 1
            r = ours.get((q, t))
            if r is None:
                missing += 1
                problems.append(f"query {q} target {t}: column row: cudp none, {oracle_name} score {score}")
                continue
            if r[2] != score:
                score_bad += 1
                problems.append(f"query {q} target {t}: column score: cudp {r[2]}, {oracle_name} {score}")
                continue
            if score <= 0:
                continue
            is_self = qseq[q] == tseq[t]
            self_hits += is_self
            diff = [(c, a, b) for c, a, b in zip(("qstart", "qend", "tstart", "tend"), ends, r[5])
                    if a is not None and a != b]
            if not diff:
                continue
            what = ", ".join(f"column {c}: cudp {b}, {oracle_name} {a}" for c, a, b in diff)
            if is_self:
                self_bad += 1
                problems.append(f"query {q} target {t} (exact self-hit): {what}")
            else:
                other_bad.append(f"query {q} target {t}: {what}")
    for q in qnames:
        if q not in oracle:
            problems.append(f"query {q}: column pairs: {oracle_name} reported none")
    if pairs != len(qnames) * len(tnames):
        problems.append(f"all queries: column pairs: {oracle_name} {pairs}, expected {len(qnames) * len(tnames)}")
    if len(other_bad) > TIED_END_FRACTION * pairs:
        problems.append(f"all queries: column ends: {len(other_bad)} pairs differ from {oracle_name}, "
                        f"limit {TIED_END_FRACTION:.0%} of {pairs}")
        problems += other_bad
    print(f"pairs {pairs}: score mismatches {score_bad}, missing {missing}; exact self-hits {self_hits}, their end "
          f"differences {self_bad}; other end differences {len(other_bad)} "
          f"({100.0 * len(other_bad) / max(1, pairs):.2f}%, limit {TIED_END_FRACTION:.0%}); rows in order: "
          f"{len(rows)} checked")
    for line in other_bad[:5]:
        print("  tied ends (allowed): " + line)
    if self_hits == 0:
        problems.append("all queries: column self-hits: none in the data, so the exact-ends check proved nothing")
    if problems:
        fail(problems)
        return 1
    return 0


def cmd_tie_split(oracle_path):
    # The first query with a tie group that a --top boundary can cut, at a cut inside that group: truncation must
    # keep the tied targets that come first in the database.
    for block in read_oracle(oracle_path).values():
        scores = [block[i][1] for i in ranking(block)]
        for k in range(1, len(scores)):
            if scores[k - 1] == scores[k] and scores[k] > 0:
                print(k)
                return 0
    return 0


def cmd_top(oracle_name, oracle_path, full_path, top, top_path):
    oracle = read_oracle(oracle_path)
    full = {(r[0], r[1]): r for r in read_ours(full_path)}
    rows = read_ours(top_path)
    qnames = list(oracle)
    tnames = [t for t, _, _ in next(iter(oracle.values()))]
    problems = check_order(rows, qnames, tnames, top, f"--top {top}")
    by_query = {}
    for r in rows:
        by_query.setdefault(r[0], []).append(r)
    compared = 0
    for q, block in oracle.items():
        want = [block[i] for i in ranking(block)][:top]
        for rank, (w, r) in enumerate(zip(want, by_query.get(q, [])), 1):
            compared += 1
            if r[1] != w[0] or r[2] != w[1]:
                problems.append(f"query {q} rank {rank}: --top {top}: column target/score: cudp {r[1]}/{r[2]}, "
                                f"{oracle_name} {w[0]}/{w[1]}")
            elif full.get((q, r[1])) != r:
                problems.append(f"query {q} target {r[1]}: --top {top}: row differs from the full run: cudp "
                                f"{r[2:]}, full run {full.get((q, r[1]), (None,) * 6)[2:]}")
    print(f"--top {top}: {len(rows)} rows, {compared} ranks compared with {oracle_name}'s order")
    if problems:
        fail(problems)
        return 1
    return 0


def cmd_searchsp(query_fa, db_fa):
    residues = sum(len(s) for _, s in read_fasta(db_fa))
    for name, s in read_fasta(query_fa):
        print(f"{name}\t{len(s) * residues}")
    return 0


def printed_interval(text, rule):
    """The exact values that print as `text` under a printf rule:
    'round' (any %f/%e: half a unit in the last printed place), 'sig3' (%.3g and %.2e: three significant digits,
    trailing zeros dropped), 'blast-bits' ('round', but above 99.9 BLAST prints (long)x: an integer n is [n, n+1)),
    'blast-e' (BLAST's E-values: 'round', but "0.0" for anything below 1e-180)."""
    text = text.strip()  # BLAST pads some fields ("%3.0ld")
    v = float(text)
    if rule == "blast-e" and text == "0.0":
        return 0.0, 1e-180
    if rule == "blast-bits" and "." not in text and "e" not in text.lower():
        return v, v + 1
    if rule == "sig3":
        if v == 0:
            return 0.0, 0.0
        half = 0.5 * 10 ** (math.floor(math.log10(abs(v))) - 2)
        return v - half, v + half
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    half = 0.5 * 10 ** (-decimals + (int(exponent) if exponent else 0))
    return v - half, v + half


def agree(a, b):
    # Both tools evaluate the same formula in double precision, in a different order: allow that rounding, no more.
    slack = 1e-9 * max(abs(a[0]), abs(a[1]), abs(b[0]), abs(b[1]), 1e-300)
    return a[0] <= b[1] + slack and b[0] <= a[1] + slack


def cmd_stats(ours_path, blast_path):
    ours = {(r[0], r[1]): r for r in read_ours(ours_path)}
    blast = {}
    for line in open(blast_path):
        q, t, score, bits, evalue = line.rstrip("\n").split("\t")
        # -max_hsps 1 leaves one HSP per pair, the best; keep the best anyway should a version list more.
        if (q, t) not in blast or int(score) > blast[(q, t)][0]:
            blast[(q, t)] = (int(score), bits, evalue)
    problems = []
    compared = lower = 0
    per_query = {}
    for (q, t), (score, bits, evalue) in blast.items():
        r = ours.get((q, t))
        if r is None:
            problems.append(f"query {q} target {t}: column row: cudp none, blastp score {score}")
            continue
        if r[2] != score:
            # blastp's seeded X-drop search can miss the optimum; only equal raw scores share a bit score.
            if score > r[2]:
                problems.append(f"query {q} target {t}: column score: cudp {r[2]} below blastp {score}")
            lower += 1
            continue
        compared += 1
        per_query[q] = per_query.get(q, 0) + 1
        if r[3] == "-" or not agree(printed_interval(r[3], "round"), printed_interval(bits, "blast-bits")):
            problems.append(f"query {q} target {t}: column bits: cudp {r[3]}, blastp {bits}")
        if r[4] == "-" or not agree(printed_interval(r[4], "sig3"), printed_interval(evalue, "blast-e")):
            problems.append(f"query {q} target {t}: column evalue: cudp {r[4]}, blastp {evalue}")
    queries = {k[0] for k in ours}
    for q in sorted(queries - set(per_query)):
        problems.append(f"query {q}: column compared pairs: none had the same raw score in cudp and blastp")
    print(f"blastp pairs {len(blast)}: same raw score {compared} (bit scores and E-values compared: "
          f"{2 * compared} values), lower blastp score {lower}, queries covered {len(per_query)}/{len(queries)}")
    if problems:
        fail(problems)
        return 1
    return 0


def cmd_no_stats(ours_path):
    """Untabulated gap costs: every bits and evalue field must be '-'."""
    problems = [f"query {r[0]} target {r[1]}: column {c}: cudp {v}, expected '-' (no published parameters)"
                for r in read_ours(ours_path) for c, v in (("bits", r[3]), ("evalue", r[4])) if v != "-"]
    print(f"no published parameters: {2 * len(read_ours(ours_path))} bits/evalue fields checked for '-'")
    if problems:
        fail(problems)
        return 1
    return 0


def read_ncbi_matrix(path):
    rows = [l.split() for l in open(path) if l.strip() and not l.startswith("#")]
    letters = rows[0]
    return {(r[0], c): int(v) for r in rows[1:] for c, v in zip(letters, r[1:])}


def cmd_alignments(ours_path, query_fa, db_fa, matrix_path, gap_open, gap_extend):
    """Every row's columns from its CIGAR alone."""
    import re
    queries, targets = dict(read_fasta(query_fa)), dict(read_fasta(db_fa))
    matrix, gap_open, gap_extend = read_ncbi_matrix(matrix_path), int(gap_open), int(gap_extend)
    problems, checked = [], 0
    for line in open(ours_path):
        if line.startswith("#"):
            continue
        f = line.rstrip("\n").split("\t")
        if len(f) != 14:
            sys.exit(f"{ours_path}: expected 14 columns with --alignments, got {len(f)}: {line!r}")
        q, t, score, qs, qe, ts, te = f[0], f[1], int(f[2]), *map(int, f[5:9])
        cigar = f[13]
        qseq, tseq = queries[q], targets[t]
        if cigar == "*":
            got = dict(score=0, ends=(0, 0, 0, 0), pident="0.000", length=0, mismatch=0, gapopen=0)
        else:
            i, j, total, length, ident, mism, opens = qs - 1, ts - 1, 0, 0, 0, 0, 0
            for n, op in re.findall(r"(\d+)([=XID])", cigar):
                n = int(n)
                length += n
                if op in "=X":
                    for _ in range(n):
                        a, b = qseq[i], tseq[j]
                        if (a == b) != (op == "="):
                            problems.append(f"query {q} target {t}: '{op}' at query {i + 1} does not fit {a}/{b}")
                        total += matrix[(b, a)]
                        ident += a == b
                        mism += a != b
                        i, j = i + 1, j + 1
                else:
                    total -= gap_open + n * gap_extend
                    opens += 1
                    i, j = (i + n, j) if op == "I" else (i, j + n)
            got = dict(score=total, ends=(qs, i, ts, j), pident=f"{100 * ident / length:.3f}", length=length,
                       mismatch=mism, gapopen=opens)
        printed = dict(score=score, ends=(qs, qe, ts, te), pident=f[9], length=int(f[10]), mismatch=int(f[11]),
                       gapopen=int(f[12]))
        for key in printed:
            if printed[key] != got[key]:
                problems.append(f"query {q} target {t}: {key}: printed {printed[key]}, from the CIGAR {got[key]}")
        checked += 1
    print(f"alignments: {checked} rows checked against their CIGARs")
    if problems or checked == 0:
        fail(problems or ["no rows"])
        return 1
    return 0


def same_number(a, b):
    """Two printings of one value: equal within what each printing's digits leave out (BLAST truncates bit scores
    above 99.9 to integers: up to one unit)."""
    def unit(text):
        if "e" in text.lower():
            mantissa = text.lower().split("e")[0]
            decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
            return abs(float(text)) * 10.0 ** -decimals
        return 10.0 ** -(len(text.split(".")[1]) if "." in text else 0)
    return abs(float(a) - float(b)) <= unit(a) + unit(b)


def cmd_tabular(tsv_path, tabular_path):
    """Row k of the tabular run is row k of the TSV run, columns moved to BLAST's order."""
    tsv = [l.rstrip("\n").split("\t") for l in open(tsv_path) if not l.startswith("#")]
    tab = [l.rstrip("\n").split("\t") for l in open(tabular_path)]
    problems = []
    if len(tsv) != len(tab):
        problems.append(f"{len(tsv)} TSV rows, {len(tab)} tabular rows")
    for k, (a, b) in enumerate(zip(tsv, tab)):
        # TSV: query target score bits evalue qs qe ts te pident length mismatch gapopen [cigar]
        # tabular: qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore [cigar]
        expected = [a[0], a[1], a[9], a[10], a[11], a[12], a[5], a[6], a[7], a[8]] + a[13:]
        got = b[:10] + b[12:]
        if got != expected:
            problems.append(f"row {k + 1}: tabular {got}, TSV {expected}")
        for name, mine, theirs in (("evalue", a[4], b[10]), ("bitscore", a[3], b[11])):
            if (mine == "-") != (theirs == "-") or (mine != "-" and not same_number(mine, theirs)):
                problems.append(f"row {k + 1}: {name}: tabular {theirs}, TSV {mine}")
    print(f"tabular: {len(tab)} rows checked against the TSV run")
    if problems or not tab:
        fail(problems or ["no rows"])
        return 1
    return 0


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "pairs":
        sys.exit(cmd_pairs(*args))
    if cmd == "tie-split":
        sys.exit(cmd_tie_split(*args))
    if cmd == "top":
        sys.exit(cmd_top(args[0], args[1], args[2], int(args[3]), args[4]))
    if cmd == "searchsp":
        sys.exit(cmd_searchsp(*args))
    if cmd == "stats":
        sys.exit(cmd_stats(*args))
    if cmd == "tabular":
        sys.exit(cmd_tabular(*args))
    if cmd == "alignments":
        sys.exit(cmd_alignments(*args))
    if cmd == "no-stats":
        sys.exit(cmd_no_stats(*args))
    sys.exit(f"unknown command {cmd}")
