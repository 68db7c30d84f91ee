#!/usr/bin/env python3
"""Full pairwise alignments of cudp-align against a CPU reference tool (docs/align-oracles.md has the conventions).

For every pair of the data sets (make_align_data.py) the oracle and cudp-align are run with the same matrix and gap
costs; their SCORES must be equal. Where the oracle prints alignments (EMBOSS pair format, parasail's traceback),
the oracle's alignment and cudp-align's (--format tabular: its ranges and CIGAR) are both rescored here from the
matrix and gap costs alone and must reach that optimum; any optimal alignment is accepted, ties are not compared.

  align_vs_oracle.py compare CUDP_ALIGN TOOL MODE DATA_DIR SET... [--scores-only]
      TOOL: needle | water | stretcher | parasail; MODE: global | semiglobal | local
  align_vs_oracle.py conventions TOOL
      The option mapping of TOOL against gotoh.py (an independent scalar DP), in every mode TOOL has, on seeded
      protein and DNA pairs, and that the check would notice an off-by-one in the gap convention.

Gap costs are cudp's: a gap of k residues costs OPEN + k*EXTEND. The tools are given:
  needle     -gapopen OPEN+EXTEND -gapextend EXTEND, and for global -endweight Y -endopen OPEN+EXTEND
             -endextend EXTEND (end gaps are free by default: that is the semi-global mode)
  water      -gapopen OPEN+EXTEND -gapextend EXTEND
  stretcher  -gapopen OPEN+EXTEND -gapextend EXTEND (global only; linear memory, so it takes the lambda genome)
  parasail   -o OPEN+EXTEND -e EXTEND; nw/sg/sw _trace_striped_32 (SAM) or, with --scores-only, _striped_32 (CSV)

Environment: NEEDLE, WATER, STRETCHER, PARASAIL_ALIGNER (the tools' paths; default: looked up on PATH),
CUDP_NCBI_DATA (protein matrices, default /usr/share/ncbi/data), EMBOSS_DATA (EDNAFULL, default
/usr/share/EMBOSS/data). Exit status: 0 when everything agrees, 1 on any mismatch, 2 on a usage or setup error.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gotoh  # noqa: E402

TOOL_MODES = {
    "needle": ("global", "semiglobal"),
    "water": ("local",),
    "stretcher": ("global",),
    "parasail": ("global", "semiglobal", "local"),
}
PARASAIL_FN = {"global": "nw", "semiglobal": "sg", "local": "sw"}
# gotoh.py's mode for each tool's: needle's semi-global admits the empty alignment (score 0), parasail's sg_ (and
# cudp's) takes the best of the last row's and column's cells.
GOTOH_MODE = {"global": "global", "semiglobal": "semi", "local": "local"}
PARASAIL_GOTOH_MODE = {"global": "global", "semiglobal": "semi_cells", "local": "local"}


def length_one_broken(tool, mode):
    """EMBOSS 6.6 water, and needle without -endweight, get pairs with a 1-residue sequence wrong: water prints
    -FLT_MAX, needle 0 where 'C' against 'WCWW' scores 9. Such pairs are left to parasail and stretcher."""
    return tool == "water" or (tool == "needle" and mode == "semiglobal")


class SetupError(Exception):
    pass


def tool_path(tool):
    env = {"needle": "NEEDLE", "water": "WATER", "stretcher": "STRETCHER", "parasail": "PARASAIL_ALIGNER"}[tool]
    return os.environ.get(env) or ("parasail_aligner" if tool == "parasail" else tool)


def matrix_file(name):
    """The matrix file the oracles (and the rescoring here) read for a name that cudp-align takes."""
    if name.upper() in ("NUC.4.4", "EDNAFULL"):
        return os.path.join(os.environ.get("EMBOSS_DATA", "/usr/share/EMBOSS/data"), "EDNAFULL")
    if os.path.sep in name:
        return name
    return os.path.join(os.environ.get("CUDP_NCBI_DATA", "/usr/share/ncbi/data"), name.upper())


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if r.returncode != 0:
        raise SetupError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()[-2000:]}")
    return r.stdout


def write_fasta(path, records):
    with open(path, "w") as f:
        for name, seq in records:
            f.write(f">{name}\n")
            for k in range(0, len(seq), 60):
                f.write(seq[k : k + 60] + "\n")


# ---------------------------------------------------------------------------------------------------------------
# Rescoring: an alignment as two gapped strings, scored from the matrix and gap costs alone.


def rescore(a, b, matrix, gap_open, gap_extend, free_end_gaps):
    """a/b: gapped strings of one length. With free_end_gaps, a gap before the first or after the last residue of a
    sequence costs nothing (semi-global)."""
    if len(a) != len(b):
        raise ValueError("gapped strings of different lengths")
    a_total = len(a) - a.count("-")
    b_total = len(b) - b.count("-")
    score, seen_a, seen_b, prev = 0, 0, 0, None
    for x, y in zip(a, b):
        if x == "-" and y == "-":
            raise ValueError("a column of two gaps")
        if x != "-" and y != "-":
            score += matrix[(x, y)]
            seen_a += 1
            seen_b += 1
            prev = None
            continue
        kind = "I" if y == "-" else "D"  # I: a (query) residue against a gap
        free = free_end_gaps and (
            (kind == "D" and (seen_a == 0 or seen_a == a_total)) or (kind == "I" and (seen_b == 0 or seen_b == b_total))
        )
        if not free:
            score -= gap_extend + (gap_open if prev != kind else 0)
        prev = kind if not free else None
        if kind == "I":
            seen_a += 1
        else:
            seen_b += 1
    return score


def ungapped(s):
    return s.replace("-", "")


def check_cover(a, b, q, t, mode):
    """The gapped strings cover both sequences whole (global, semi-global) or a piece of each (local)."""
    ua, ub = ungapped(a).upper(), ungapped(b).upper()
    if mode == "local":
        return ua in q and ub in t
    return ua == q and ub == t


def gapped_from_cigar(cigar, q, t, qb, tb):
    """Gapped strings of q[qb:] / t[tb:] from an extended CIGAR (= X M I D); returns (a, b, q_end, t_end)."""
    a, b = [], []
    i, j = qb, tb
    for n, op in re.findall(r"(\d+)([=XMIDS])", cigar):
        n = int(n)
        if op in "=XM":
            if i + n > len(q) or j + n > len(t):
                raise ValueError("CIGAR runs past a sequence")
            for k in range(n):
                if op == "=" and q[i + k] != t[j + k] or op == "X" and q[i + k] == t[j + k]:
                    raise ValueError(f"'{op}' at query {i + k + 1}, target {j + k + 1} does not fit the residues")
            a.append(q[i : i + n])
            b.append(t[j : j + n])
            i += n
            j += n
        elif op == "I":
            if i + n > len(q):
                raise ValueError("CIGAR runs past the query")
            a.append(q[i : i + n])
            b.append("-" * n)
            i += n
        elif op == "D":
            if j + n > len(t):
                raise ValueError("CIGAR runs past the target")
            a.append("-" * n)
            b.append(t[j : j + n])
            j += n
        else:
            raise ValueError(f"unexpected CIGAR operation {op}")
    if "".join(f"{n}{op}" for n, op in re.findall(r"(\d+)([=XMIDS])", cigar)) != cigar:
        raise ValueError(f"malformed CIGAR {cigar!r}")
    return "".join(a), "".join(b), i, j


# ---------------------------------------------------------------------------------------------------------------
# The oracles. Each takes the pairs [(qname, q, tname, t)] and returns one dict per pair:
#   {"score": int, "a": gapped query or None, "b": gapped target or None}


def groups(pairs):
    """Runs of consecutive pairs with the same query: one oracle invocation each."""
    out = []
    for k, p in enumerate(pairs):
        if out and pairs[out[-1][0]][1] == p[1] and pairs[out[-1][0]][0] == p[0]:
            out[-1].append(k)
        else:
            out.append([k])
    return out


def parse_emboss_pair(text):
    """EMBOSS pair (srspair) format: per alignment its score and the two gapped strings."""
    out = []
    cur = None
    for line in text.splitlines():
        if line.startswith("# Aligned_sequences"):
            cur = {"score": None, "a": [], "b": [], "turn": 0}
            out.append(cur)
        elif line.startswith("# Score:"):
            cur["score"] = line.split(":", 1)[1].strip()
        elif cur is not None and line and not line.startswith("#") and not line[0].isspace():
            f = line.split()
            if len(f) != 4:
                raise SetupError(f"unexpected pair-format line: {line!r}")
            (cur["a"] if cur["turn"] == 0 else cur["b"]).append(f[2])
            cur["turn"] ^= 1
    res = []
    for c in out:
        s = float(c["score"])
        if s != int(s):
            raise SetupError(f"non-integral EMBOSS score {c['score']}")
        res.append({"score": int(s), "a": "".join(c["a"]), "b": "".join(c["b"])})
    return res


def emboss_gap_args(tool, mode, gap_open, gap_extend):
    args = ["-gapopen", str(gap_open + gap_extend), "-gapextend", str(gap_extend)]
    if tool == "needle" and mode == "global":
        args += ["-endweight", "Y", "-endopen", str(gap_open + gap_extend), "-endextend", str(gap_extend)]
    return args


def run_emboss(tool, mode, pairs, matrix, gap_open, gap_extend, tmp):
    res = [None] * len(pairs)
    base = [tool_path(tool), "-auto", "-aformat", "pair", "-datafile", matrix_file(matrix)]
    # The alphabet stated, not guessed: a query "A" would make EMBOSS read a protein target as DNA.
    kind = "-snucleotide" if matrix.upper() in ("NUC.4.4", "EDNAFULL") else "-sprotein"
    base += [kind + "1", "Y", kind + "2", "Y"]
    base += emboss_gap_args(tool, mode, gap_open, gap_extend)
    # stretcher takes one sequence on each side; needle and water one query against a file of targets.
    batches = [[k] for k in range(len(pairs))] if tool == "stretcher" else groups(pairs)
    for batch in batches:
        qn, q = pairs[batch[0]][0], pairs[batch[0]][1]
        write_fasta(f"{tmp}/a.fa", [("q", q)])
        write_fasta(f"{tmp}/b.fa", [(f"t{k}", pairs[k][3]) for k in batch])
        run(base + ["-asequence", f"{tmp}/a.fa", "-bsequence", f"{tmp}/b.fa", "-outfile", f"{tmp}/o.txt"])
        with open(f"{tmp}/o.txt") as f:
            parsed = parse_emboss_pair(f.read())
        if len(parsed) != len(batch):
            raise SetupError(f"{tool}: {len(parsed)} alignments for {len(batch)} pairs (query {qn})")
        for k, r in zip(batch, parsed):
            res[k] = r
    return res


def run_parasail(mode, pairs, matrix, gap_open, gap_extend, tmp, trace=True):
    """parasail_aligner, one invocation per query; 32-bit lanes, no suffix-array prefilter (-x). The score is the
    scan routine's (_striped_32, CSV); with trace, the alignment is the traceback routine's (_trace_striped_32, SAM),
    left out (None) where parasail prints none or one of another score: its sg_ traceback gives an unmapped record
    when the best score is 0. parasail_aligner polls stdin and takes a readable one (even /dev/null) as a third
    input; it runs with stdin closed (an empty FIFO held open, as parasail_scores.sh does, costs 0.2 s a run)."""
    res = [None] * len(pairs)
    fn = PARASAIL_FN[mode]
    closed_stdin = {"stdin": subprocess.DEVNULL, "preexec_fn": lambda: os.close(0)}
    for batch in groups(pairs):
        write_fasta(f"{tmp}/q.fa", [("0", pairs[batch[0]][1])])
        write_fasta(f"{tmp}/d.fa", [(str(i), pairs[k][3]) for i, k in enumerate(batch)])
        common = [tool_path("parasail"), "-x", "-o", str(gap_open + gap_extend), "-e", str(gap_extend),
                  "-m", matrix_file(matrix), "-q", f"{tmp}/q.fa", "-f", f"{tmp}/d.fa"]
        run(common + ["-a", fn + "_striped_32", "-g", f"{tmp}/o.csv"], **closed_stdin)
        got = {}
        with open(f"{tmp}/o.csv") as f:
            for line in f:
                p = line.strip().split(",")
                got[int(p[1])] = {"score": int(p[4]), "a": None, "b": None}
        if sorted(got) != list(range(len(batch))):
            raise SetupError(f"parasail: scores for {len(got)} pairs, not for all {len(batch)}")
        if trace:
            run(common + ["-a", fn + "_trace_striped_32", "-O", "SAM", "-g", f"{tmp}/o.sam"], **closed_stdin)
            with open(f"{tmp}/o.sam") as f:
                records = [p for p in (line.rstrip("\n").split("\t") for line in f if not line.startswith("@"))
                           if len(p) >= 11]
                for j, p in enumerate(records):
                    if p[2] == "*" or int(p[1]) & 4:
                        # parasail writes an alignment of score 0 (every residue in an end gap) as unmapped, one
                        # record per target in the database's order.
                        if len(records) == len(batch) and got[j]["score"] == 0:
                            got[j]["error"] = "unmapped (score 0)"
                        continue
                    score = [x for x in p[11:] if x.startswith("AS:i:")]
                    r = got.get(int(p[2]))
                    if r is None:
                        continue
                    if not score or int(score[0][5:]) != r["score"]:
                        r["error"] = f"parasail's traceback scores {score[:1]}, its score run {r['score']}"
                        continue
                    k = batch[int(p[2])]
                    try:
                        r["a"], r["b"] = parasail_gapped(mode, int(p[3]), p[5], pairs[k][1], pairs[k][3])
                    except ValueError as e:
                        r["a"] = r["b"] = None
                        r["error"] = f"parasail's CIGAR {p[5][:60]}: {e}"
        for i, k in enumerate(batch):
            res[k] = got[i]
    return res


def parasail_gapped(mode, pos, cigar, q, t):
    """The gapped strings of a parasail SAM record. Local: soft clips give the query start, POS the target's; parasail
    2.6's local traceback may begin or end the CIGAR with a gap run that is not part of the alignment (the
    parasail_scores.sh note), so leading and trailing I/D runs are dropped there."""
    if cigar in ("*", ""):
        return "", ""
    ops = re.findall(r"(\d+)([=XMIDS])", cigar)
    qb = 0
    if ops and ops[0][1] == "S":
        qb = int(ops[0][0])
        ops = ops[1:]
    if ops and ops[-1][1] == "S":
        ops = ops[:-1]
    tb = pos - 1
    if mode == "local":
        while ops and ops[0][1] in "ID":
            if ops[0][1] == "I":
                qb += int(ops[0][0])
            else:
                tb += int(ops[0][0])
            ops = ops[1:]
        while ops and ops[-1][1] in "ID":
            ops = ops[:-1]
    a, b, _, _ = gapped_from_cigar("".join(n + o for n, o in ops), q, t, qb, tb)
    return a, b


# ---------------------------------------------------------------------------------------------------------------
# cudp-align


def run_cudp(cudp, mode, pairs, s, tmp, fmt):
    write_fasta(f"{tmp}/cq.fa", [(p[0], p[1]) for p in pairs])
    write_fasta(f"{tmp}/ct.fa", [(p[2], p[3]) for p in pairs])
    cmd = [cudp, "--query", f"{tmp}/cq.fa", "--target", f"{tmp}/ct.fa", "--mode", mode, "--pairs", "one-to-one",
           "--matrix", s["matrix"], "--alphabet", s["alphabet"], "--gap-open", str(s["open"]),
           "--gap-extend", str(s["extend"]), "--format", fmt, "--out", f"{tmp}/c.out"]
    run(cmd + os.environ.get("CUDP_ALIGN_ARGS", "").split())  # e.g. --backend cuda
    with open(f"{tmp}/c.out") as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("#")]


def cudp_alignment(fields, q, t, mode):
    """BLAST outfmt 6 (qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore) then
    score and CIGAR: the gapped strings of the aligned ranges, checked against the mode's ends."""
    qs, qe, ts, te = (int(x) for x in fields[6:10])
    cigar = fields[-1]
    a, b, i, j = gapped_from_cigar(cigar, q, t, qs - 1, ts - 1)
    if (i, j) != (qe, te):
        raise ValueError(f"CIGAR ends at query {i}, target {j}, not at the ranges' ends {qe}, {te}")
    if mode == "global" and (qs, qe, ts, te) != (1, len(q), 1, len(t)):
        raise ValueError(f"global alignment covers {qs}-{qe} x {ts}-{te}, not both sequences whole")
    if mode == "semiglobal" and (not (qs == 1 or ts == 1) or not (qe == len(q) or te == len(t))):
        raise ValueError(f"semi-global alignment {qs}-{qe} x {ts}-{te} does not start and end on an edge")
    return a, b


# ---------------------------------------------------------------------------------------------------------------


def read_sets(data):
    sets = {}
    with open(os.path.join(data, "sets.tsv")) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            sets[p[0]] = {"name": p[0], "matrix": p[1], "open": int(p[2]), "extend": int(p[3]), "alphabet": p[4],
                          "npairs": int(p[5]), "cells": int(p[6])}
    return sets


def load_pairs(data, name):
    q = gotoh.read_fasta(os.path.join(data, name + ".q.fa"))
    t = gotoh.read_fasta(os.path.join(data, name + ".t.fa"))
    if len(q) != len(t):
        raise SetupError(f"{name}: {len(q)} queries but {len(t)} targets")
    return [(qn, qs, tn, ts) for (qn, qs), (tn, ts) in zip(q, t)]


def compare(argv):
    scores_only = "--scores-only" in argv
    argv = [a for a in argv if a != "--scores-only"]
    if len(argv) < 5:
        raise SetupError("usage: compare CUDP_ALIGN TOOL MODE DATA_DIR SET...")
    cudp, tool, mode, data, names = argv[0], argv[1], argv[2], argv[3], argv[4:]
    if tool not in TOOL_MODES or mode not in TOOL_MODES[tool]:
        raise SetupError(f"{tool} has no mode {mode} (modes: {TOOL_MODES.get(tool)})")
    with_alignments = not scores_only
    sets = read_sets(data)
    bad = total = checked_alignments = 0
    oracle_notes = []
    for name in names:
        if name not in sets:
            raise SetupError(f"no set {name} in {data}/sets.tsv")
        s = sets[name]
        pairs = load_pairs(data, name)
        matrix = gotoh.load_matrix(matrix_file(s["matrix"]))
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.time()
            run_on = list(range(len(pairs)))
            if length_one_broken(tool, mode):
                run_on = [k for k in run_on if min(len(pairs[k][1]), len(pairs[k][3])) > 1]
            sub = [pairs[k] for k in run_on]
            if tool == "parasail":
                got = run_parasail(mode, sub, s["matrix"], s["open"], s["extend"], tmp, trace=with_alignments)
            else:
                got = run_emboss(tool, mode, sub, s["matrix"], s["open"], s["extend"], tmp)
            oracle = [None] * len(pairs)
            for k, r in zip(run_on, got):
                oracle[k] = r
            t1 = time.time()
            fmt = "tabular" if with_alignments else "score"
            mine = run_cudp(cudp, mode, pairs, s, tmp, fmt)
            t2 = time.time()
        set_bad = 0

        def fail(k, what):
            nonlocal set_bad
            set_bad += 1
            if set_bad <= 20:
                print(f"MISMATCH {name} pair {k + 1} ({pairs[k][0]} x {pairs[k][2]}, lengths {len(pairs[k][1])} x "
                      f"{len(pairs[k][3])}): {what}")

        if len(mine) != len(pairs) and not (with_alignments and mode == "local"):
            print(f"MISMATCH {name}: cudp-align printed {len(mine)} lines for {len(pairs)} pairs")
            set_bad += 1
        # Local tabular output may leave out pairs with no alignment (score 0): match the lines by names, in order.
        lines = iter(mine)
        pending = next(lines, None)
        skipped = bounded = 0
        for k, (qn, q, tn, t) in enumerate(pairs):
            if oracle[k] is None:  # not run: a 1-residue sequence that the tool gets wrong
                skipped += 1
                if pending is not None and pending[0] == qn and pending[1] == tn:
                    pending = next(lines, None)
                continue
            want = oracle[k]["score"]
            if tool == "water" and want < 0:
                want = 0  # water prints one negative pair where no alignment scores above 0
            # EMBOSS 6.6 water misreports some short pairs (CTG x TA: T/T shown, score 1 printed, EDNAFULL says 5):
            # where the tool's own alignment rescores above its score, that rescored value is a lower bound only.
            lower = None
            if tool != "parasail" and with_alignments and oracle[k]["a"] and check_cover(oracle[k]["a"],
                                                                                      oracle[k]["b"], q, t, mode):
                r = rescore(oracle[k]["a"], oracle[k]["b"], matrix, s["open"], s["extend"], mode == "semiglobal")
                if r > want:
                    oracle_notes.append(f"{name} pair {k + 1} ({qn} x {tn}): {tool} printed {want} for an alignment "
                                        f"that scores {r}; cudp-align must reach at least {r}")
                    lower = r
            fields = None
            if pending is not None and pending[0] == qn and pending[1] == tn:
                fields, pending = pending, next(lines, None)
            if fields is None:
                if with_alignments and mode == "local" and want == 0:
                    continue
                fail(k, f"no line from cudp-align (oracle score {want})")
                continue
            col = 2 if fmt == "score" else len(fields) - 2
            try:
                got = int(fields[col])
            except (ValueError, IndexError):
                fail(k, f"unreadable cudp-align line {fields}")
                continue
            if tool == "needle" and mode == "semiglobal" and want == 0 and oracle[k]["a"] is not None and \
                    not any(x != "-" and y != "-" for x, y in zip(oracle[k]["a"], oracle[k]["b"])):
                # needle's empty alignment (every residue in an end gap) scores 0; cudp's semi-global, like
                # parasail's sg_, keeps the best alignment that reaches a cell, which may score below 0. The exact
                # value is parasail's test.
                if got > 0:
                    fail(k, f"score: {tool} 0 (an empty alignment), cudp-align {got} > 0")
                bounded += 1
                continue
            if lower is not None:
                if got < lower:
                    fail(k, f"score: cudp-align {got} below {tool}'s alignment's {lower}")
                    continue
                want = got  # the alignment check below: cudp-align's alignment must reach its own score
                bounded += 1
            elif got != want:
                fail(k, f"score: {tool} {want}, cudp-align {got}")
                continue
            if not with_alignments or (mode == "local" and want == 0):
                continue
            # The oracle's own alignment: a sanity check of the tool and of the parsing here (the conventions test
            # requires it); a defect is noted, not held against cudp-align.
            a, b = oracle[k]["a"], oracle[k]["b"]
            if lower is not None:
                pass
            elif a is None:
                oracle_notes.append(f"{name} pair {k + 1}: {oracle[k].get('error', tool + ' printed no alignment')}")
            elif not check_cover(a, b, q, t, mode):
                oracle_notes.append(f"{name} pair {k + 1}: {tool}'s alignment does not cover the sequences")
            else:
                r = rescore(a, b, matrix, s["open"], s["extend"], mode == "semiglobal")
                if r != want:
                    oracle_notes.append(f"{name} pair {k + 1} ({qn} x {tn}): {tool}'s alignment rescores to {r}, "
                                        f"not its score {want}")
            try:
                ca, cb = cudp_alignment(fields, q, t, mode)
                r = rescore(ca, cb, matrix, s["open"], s["extend"], False)
            except (ValueError, IndexError) as e:
                fail(k, f"cudp-align's alignment {fields[6:10]} {fields[-1][:60]}: {e}")
                continue
            if r != want:
                fail(k, f"cudp-align's alignment rescores to {r}, not the optimum {want} (cudp-align says {got})")
                continue
            checked_alignments += 1
        if pending is not None:
            print(f"MISMATCH {name}: cudp-align printed a line for no pair, or out of order: {pending[:2]}")
            set_bad += 1
        print(f"{'ok  ' if not set_bad else 'FAIL'} {tool} {mode} {name} ({s['matrix']} {s['open']}/{s['extend']}): "
              f"{len(pairs) - skipped} pairs ({skipped} with a 1-residue sequence skipped, {bounded} only bounded: "
              f"an empty needle alignment or a misreported score), {set_bad} mismatches; {tool} {t1 - t0:.1f} s, cudp-align {t2 - t1:.1f} s")
        bad += set_bad
        total += len(pairs) - skipped
    for note in oracle_notes[:10]:
        print(f"note (oracle, not cudp-align): {note}")
    if len(oracle_notes) > 10:
        print(f"note: {len(oracle_notes) - 10} more")
    print(f"{tool} {mode}: {total} pairs compared ({'scores' if not with_alignments else 'scores and alignments'}), "
          f"{checked_alignments} alignments rescored, {bad} mismatches")
    if total == 0 or with_alignments and checked_alignments == 0:
        print(f"FAIL {tool} {mode}: nothing was compared")
        return 1
    return 1 if bad else 0


# ---------------------------------------------------------------------------------------------------------------
# The option mappings against gotoh.py.


def conventions(argv):
    if len(argv) != 1 or argv[0] not in TOOL_MODES:
        raise SetupError(f"usage: conventions {'|'.join(TOOL_MODES)}")
    tool = argv[0]
    fail = 0
    import random

    with tempfile.TemporaryDirectory() as tmp:
        for mode in TOOL_MODES[tool]:
            for seed, matrix, gap_open, gap_extend, alphabet in (
                (21, "BLOSUM62", 11, 1, "protein"),
                (22, "BLOSUM62", 5, 3, "protein"),
                (23, "PAM250", 14, 2, "protein"),
                (24, "NUC.4.4", 10, 1, "dna"),
                (25, "NUC.4.4", 16, 4, "dna"),
                (26, "NUC.4.4", 4, 3, "dna"),
            ):
                rng = random.Random(seed)
                gotoh.cmd_pairs([str(seed), "4", "6", f"{tmp}/q.fa", f"{tmp}/t.fa"])
                qs, ts = gotoh.read_fasta(f"{tmp}/q.fa"), gotoh.read_fasta(f"{tmp}/t.fa")
                if alphabet == "dna":
                    to_dna = lambda s: "".join("ACGT"[ord(c) % 4] for c in s)  # noqa: E731
                    qs = [(n, to_dna(s)) for n, s in qs]
                    ts = [(n, to_dna(s)) for n, s in ts]
                    qs.append(("polyA", "A" * 30))
                    ts.append(("polyA", "A" * 12))
                pairs = [(qn, q, tn, t) for qn, q in qs for tn, t in ts][::2]
                pairs.append(("one", "A", "one", "A"))
                pairs.append(("one", "C", "two", rng.choice(["W", "G"])))
                pairs.sort(key=lambda p: (p[0], p[1]))
                m = gotoh.load_matrix(matrix_file(matrix))
                if length_one_broken(tool, mode):
                    pairs = [p for p in pairs if min(len(p[1]), len(p[3])) > 1]
                gm = (PARASAIL_GOTOH_MODE if tool == "parasail" else GOTOH_MODE)[mode]
                want = [gotoh.align(p[1], p[3], m, gap_open, gap_extend, gm)[0] for p in pairs]
                # Off by one: the first gap residue charged only OPEN (k costs OPEN + (k-1)*EXTEND).
                off = [gotoh.align(p[1], p[3], m, gap_open - gap_extend, gap_extend, gm)[0]
                       if seed in (21, 24) else None for p in pairs]  # the slow part: two settings
                if tool == "parasail":
                    got = run_parasail(mode, pairs, matrix, gap_open, gap_extend, tmp)
                else:
                    got = run_emboss(tool, mode, pairs, matrix, gap_open, gap_extend, tmp)
                bad = [(p, w, g["score"]) for p, w, g in zip(pairs, want, got) if w != g["score"]]
                bad_aln = checked = 0
                for p, g in zip(pairs, got):
                    if g["score"] == 0 and (mode == "local" or g.get("error") == "unmapped (score 0)"):
                        continue  # no alignment to check
                    if g["a"] is None or not check_cover(g["a"], g["b"], p[1], p[3], mode) or \
                            rescore(g["a"], g["b"], m, gap_open, gap_extend, mode == "semiglobal") != g["score"]:
                        bad_aln += 1
                        if bad_aln <= 3:
                            print(f"     {p[0]} x {p[2]}: {tool}'s alignment is unreadable, does not cover the "
                                  f"sequences or does not rescore to {g['score']} ({g.get('error', 'no record')})")
                    else:
                        checked += 1
                label = f"{tool} {mode} {matrix} {gap_open}/{gap_extend}"
                if bad or bad_aln:
                    print(f"FAIL {label}: {len(bad)} scores differ from gotoh.py, {bad_aln} alignments do not rescore")
                    for p, w, g in bad[:5]:
                        print(f"     {p[0]} x {p[2]}: gotoh.py {w}, {tool} {g}")
                    fail = 1
                elif checked < len(pairs) // 2:
                    print(f"FAIL {label}: only {checked} of {len(pairs)} alignments checked")
                    fail = 1
                else:
                    print(f"ok   {label}: {len(pairs)} scores equal to gotoh.py's, {checked} alignments rescore to them")
                if off[0] is not None and off == [g["score"] for g in got]:
                    print(f"FAIL {label}: the data cannot tell OPEN+k*EXTEND from OPEN+(k-1)*EXTEND")
                    fail = 1
    return fail


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("compare", "conventions"):
        print(__doc__)
        return 2
    try:
        return (compare if sys.argv[1] == "compare" else conventions)(sys.argv[2:])
    except SetupError as e:
        print(f"align_vs_oracle.py: {e}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
