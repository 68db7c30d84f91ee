#!/usr/bin/env python3
"""Slow, scalar, obviously-correct affine-gap (Gotoh) alignment used to pin down the gap conventions of the
external oracles (ssearch36, parasail). Deliberately naive: one cell at a time, no banding, no SIMD, nothing
shared with the code under test.

Convention: a gap of length k costs OPEN + k * EXTEND (BLAST's). Modes:
  local   Smith-Waterman; also reports 1-based inclusive start/end of one optimal alignment
  global  Needleman-Wunsch, end gaps charged
  semi    free end gaps in both sequences (leading and trailing gaps cost nothing); the empty alignment (score 0)
          counts, as in EMBOSS needle without -endweight
  semi_cells  the same, best over the cells of the last row and column only (i, j >= 1): at least one residue pair
          or charged gap, as in parasail's sg_ routines and cudp's SemiGlobal

Usage:
  gotoh.py scores  MATRIX OPEN EXTEND QUERY.fa DB.fa [--mode local|global|semi]   -> TSV on stdout
  gotoh.py check   MATRIX OPEN EXTEND QUERY.fa DB.fa ORACLE.tsv [--no-ends]
      Verifies an oracle's TSV (query, target, score, qstart, qend, tstart, tend): every pair present, every local
      score equal, and the reported ends consistent, i.e. the global score of query[qstart..qend] against
      target[tstart..tend] equals the reported score. That test accepts any optimal alignment, so it is
      independent of how the oracle breaks ties. Starts given as "-" mean ends only: then the best local
      alignment ending exactly at (qend, tend) must reach the score. Exit status 1 on any mismatch.
  gotoh.py pairs   SEED NQUERIES NTARGETS QUERY_OUT.fa TARGET_OUT.fa
      Seeded random test inputs, two targets in three being mutated copies of a query.

MATRIX is a name under /usr/share/ncbi/data (BLOSUM62, PAM250, ...) or a path to an NCBI-format matrix file.
Residues absent from the matrix are an error, so nothing is silently remapped.
"""
import os
import sys

NEG_INF = float("-inf")


def load_matrix(name):
    path = name if os.path.sep in name else os.path.join("/usr/share/ncbi/data", name.upper())
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            rows.append(line.split())
    cols = rows[0]
    m = {}
    for r in rows[1:]:
        for c, v in zip(cols, r[1:]):
            m[(r[0], c)] = int(v)
    return m


def read_fasta(path):
    seqs = []
    name, buf = None, []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n\r")
            if line.startswith(">"):
                if name is not None:
                    seqs.append((name, "".join(buf)))
                name = line[1:].split()[0] if line[1:].split() else ""
                buf = []
            elif name is not None:
                buf.append(line.strip().upper())
    if name is not None:
        seqs.append((name, "".join(buf)))
    return seqs


def _scores(a, b, matrix):
    try:
        return [[matrix[(x, y)] for y in b] for x in a]
    except KeyError as e:
        raise SystemExit(f"gotoh.py: residue pair {e.args[0]} not in the matrix")


def align(a, b, matrix, gap_open, gap_extend, mode="local"):
    """Returns (score, qstart, qend, tstart, tend); the coordinates are 1-based inclusive for local mode with a
    positive score and 0 otherwise. Mode "local_end" returns the best local score of alignments ending exactly at
    the last residue of both sequences (or 0)."""
    local = mode in ("local", "local_end")
    n, m = len(a), len(b)
    s = _scores(a, b, matrix)
    go = gap_open + gap_extend  # the first residue of a gap pays both
    ge = gap_extend
    # Row 0. E: gap running along a row (consumes b), F: gap running down a column (consumes a).
    if mode == "global":
        H_prev = [0] + [-(gap_open + j * ge) for j in range(1, m + 1)]
    else:
        H_prev = [0] * (m + 1)
    F_prev = [NEG_INF] * (m + 1)
    # Start cell of the best path into H/E/F (local mode only).
    SH_prev = [None] * (m + 1)
    SF_prev = [None] * (m + 1)

    best, best_end, best_start = 0, (0, 0), (0, 0)
    semi_best = 0  # H(0, m): all of b skipped by a free leading gap, all of a by a free trailing one
    cells_best = NEG_INF  # semi_cells: H(i, m) and H(n, j) for i, j >= 1 only

    for i in range(1, n + 1):
        H = [0] * (m + 1)
        E = [NEG_INF] * (m + 1)
        F = [NEG_INF] * (m + 1)
        SH = [None] * (m + 1)
        SE = [None] * (m + 1)
        SF = [None] * (m + 1)
        if mode == "global":
            H[0] = -(gap_open + i * ge)
            F[0] = H[0]
        row = s[i - 1]
        for j in range(1, m + 1):
            e_ext, e_open = E[j - 1] - ge, H[j - 1] - go
            if e_ext >= e_open:
                E[j], SE[j] = e_ext, SE[j - 1]
            else:
                E[j], SE[j] = e_open, SH[j - 1]
            f_ext, f_open = F_prev[j] - ge, H_prev[j] - go
            if f_ext >= f_open:
                F[j], SF[j] = f_ext, SF_prev[j]
            else:
                F[j], SF[j] = f_open, SH_prev[j]
            diag = H_prev[j - 1] + row[j - 1]
            if local:
                diag_start = SH_prev[j - 1] if H_prev[j - 1] > 0 else (i, j)
            else:
                diag_start = None
            h, st = diag, diag_start
            if E[j] > h:
                h, st = E[j], SE[j]
            if F[j] > h:
                h, st = F[j], SF[j]
            if local and h <= 0:
                h, st = 0, None
            H[j], SH[j] = h, st
            if mode == "local" and h > best:
                best, best_end, best_start = h, (i, j), st
        if mode == "semi":
            semi_best = max(semi_best, H[m])
        if mode == "semi_cells" and m:
            cells_best = max(cells_best, H[m])
        H_prev, F_prev, SH_prev, SF_prev = H, F, SH, SF

    if mode == "local_end":
        return (H_prev[m] if n and m else 0), 0, 0, 0, 0
    if mode == "local":
        if best <= 0:
            return 0, 0, 0, 0, 0
        return best, best_start[0], best_end[0], best_start[1], best_end[1]
    if mode == "global":
        return H_prev[m], 0, 0, 0, 0
    if mode == "semi_cells":
        if not n or not m:
            return 0, 0, 0, 0, 0
        return max(cells_best, max(H_prev[1:])), 0, 0, 0, 0
    return max(semi_best, max(H_prev)), 0, 0, 0, 0


def cmd_scores(argv):
    mode = "local"
    if "--mode" in argv:
        k = argv.index("--mode")
        mode = argv[k + 1]
        del argv[k : k + 2]
    matrix_name, gap_open, gap_extend, qpath, dpath = argv
    matrix = load_matrix(matrix_name)
    gap_open, gap_extend = int(gap_open), int(gap_extend)
    out = sys.stdout
    for qn, q in read_fasta(qpath):
        for tn, t in read_fasta(dpath):
            sc, qs, qe, ts, te = align(q, t, matrix, gap_open, gap_extend, mode)
            out.write(f"{qn}\t{tn}\t{sc}\t{qs}\t{qe}\t{ts}\t{te}\n")
    return 0


def cmd_check(argv):
    check_ends = True
    if "--no-ends" in argv:
        argv.remove("--no-ends")
        check_ends = False
    matrix_name, gap_open, gap_extend, qpath, dpath, tsv = argv
    matrix = load_matrix(matrix_name)
    gap_open, gap_extend = int(gap_open), int(gap_extend)
    queries, targets = read_fasta(qpath), read_fasta(dpath)
    qseq, tseq = dict(queries), dict(targets)
    got = {}
    with open(tsv) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) != 7:
                print(f"malformed line: {line!r}")
                return 1
            key = (p[0], p[1])
            if key in got:
                print(f"duplicate pair {key}")
                return 1
            got[key] = tuple(int(x) if x.lstrip("-").isdigit() else None for x in p[2:])

    bad = pairs = exact_ends = 0
    for qn, q in queries:
        for tn, t in targets:
            pairs += 1
            want = align(q, t, matrix, gap_open, gap_extend, "local")
            g = got.get((qn, tn))
            if g is None:
                print(f"MISSING {qn} {tn} (expected score {want[0]})")
                bad += 1
                continue
            if g[0] != want[0]:
                print(f"SCORE {qn} {tn}: oracle {g[0]} gotoh {want[0]}")
                bad += 1
                continue
            if not check_ends or want[0] == 0:
                continue
            qs, qe, ts, te = g[1:]
            if qs is None and ts is None and qe is not None and te is not None and 1 <= qe <= len(q) and 1 <= te <= len(t):
                # Ends only (the oracle gave no starts): some optimal alignment must end exactly there.
                at = align(q[:qe], t[:te], matrix, gap_open, gap_extend, "local_end")[0]
                if at != want[0]:
                    print(f"ENDS {qn} {tn}: best alignment ending at {qe},{te} scores {at}, not {want[0]}")
                    bad += 1
                elif (qe, te) == (want[2], want[4]):
                    exact_ends += 1
                continue
            if None in (qs, qe, ts, te) or not (1 <= qs <= qe <= len(q) and 1 <= ts <= te <= len(t)):
                print(f"ENDS {qn} {tn}: out of range {g[1:]}")
                bad += 1
                continue
            sub = align(q[qs - 1 : qe], t[ts - 1 : te], matrix, gap_open, gap_extend, "global")[0]
            if sub != want[0]:
                print(f"ENDS {qn} {tn}: {g[1:]} bound an alignment scoring {sub}, not {want[0]}")
                bad += 1
            elif tuple(g[1:]) == tuple(want[1:]):
                exact_ends += 1
    extra = set(got) - {(qn, tn) for qn, _ in queries for tn, _ in targets}
    for k in sorted(extra):
        print(f"EXTRA pair {k}")
        bad += 1
    print(f"gotoh check: {pairs} pairs, {bad} mismatches, {exact_ends} with ends identical to gotoh.py's tie-break")
    return 1 if bad else 0


def cmd_pairs(argv):
    """Seeded test inputs: queries of 20-200 residues, and targets that are either unrelated or mutated copies of a
    query (substitutions, several multi-residue indels, random flanks), so that gaps of many lengths occur in the
    optimal alignments and an off-by-one in the gap convention changes scores."""
    import random

    seed, nq, nt, qpath, tpath = argv
    rng = random.Random(int(seed))
    aa = "ACDEFGHIKLMNPQRSTVWY"
    rand = lambda n: "".join(rng.choice(aa) for _ in range(n))
    queries = [rand(rng.randint(20, 200)) for _ in range(int(nq))]
    targets = []
    for k in range(int(nt)):
        if k % 3 == 2:
            targets.append(rand(rng.randint(20, 200)))
            continue
        q = queries[k % len(queries)]
        out = [rand(rng.randint(0, 30))]
        i = 0
        while i < len(q):
            r = rng.random()
            if r < 0.03:
                out.append(rand(rng.randint(1, 8)))
            elif r < 0.06:
                i += rng.randint(1, 8)
                continue
            out.append(q[i] if rng.random() < 0.75 else rng.choice(aa))
            i += 1
        out.append(rand(rng.randint(0, 30)))
        targets.append("".join(out))
    with open(qpath, "w") as f:
        for k, q in enumerate(queries):
            f.write(f">query{k + 1} random {len(q)} aa\n{q}\n")
    with open(tpath, "w") as f:
        for k, t in enumerate(targets):
            f.write(f">target{k + 1}\n{t}\n")
    return 0


def main():
    cmds = {"scores": cmd_scores, "check": cmd_check, "pairs": cmd_pairs}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        print(__doc__)
        return 2
    return cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
