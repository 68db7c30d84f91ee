#!/usr/bin/env python3
"""cudp-align's outputs, checked against what the input files and the scoring imply, computed here independently.

For every mode (global, local, semiglobal), protein and DNA scoring, both --pairs settings, and every format:
  pair     the rows without gaps are the sequences (whole for global and semi-global, the printed range for local);
           names, start and end columns follow EMBOSS's rules; the match line is recomputed from the matrix; Length,
           Identity, Similarity, Gaps (with their percentages) are recounted from the rows; Score is recomputed from
           the rows with the matrix and gap costs (end gaps free in semi-global mode).
  tabular  pident, length, mismatch, gapopen, coordinates and CIGAR recomputed from the pair rows of the same run;
           E-value and bit score recomputed from the Karlin-Altschul formulas for BLOSUM62 11/1, local mode.
  sam      @SQ lines are the targets; the CIGAR consumes the query exactly and fits in the target from POS; every
           = and X column agrees with the residues; NM recounted; AS equals the score; one primary record per query.
  score    equals the pair Score.
The matrices are read from the text in include/cudp/io/builtin_matrices.hpp by this script's own parser.

    align_checks.py CUDP_ALIGN SOURCE_DIR

CUDP_ALIGN_ARGS (environment): more arguments for every run, e.g. --backend cuda for the GPU path.
"""
import math
import os
import re
import subprocess
import sys
import tempfile

ALIGN, SRC = sys.argv[1], sys.argv[2]
DATA = os.path.join(SRC, "apps", "data", "align")
failures = 0
checked = {"pairs": 0, "columns": 0}


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def read_fasta(path):
    recs, name = [], None
    for line in open(path):
        line = line.strip()
        if line.startswith(">"):
            recs.append([line[1:].split()[0], []])
        elif line:
            recs[-1][1].append(line.upper().replace("U", "T") if "dna" in path else line.upper())
    return [(n, "".join(s)) for n, s in recs]


def builtin_matrix(name):
    text = open(os.path.join(SRC, "include", "cudp", "io", "builtin_matrices.hpp")).read()
    body = re.search(name + r'_text = R"\((.*?)\)";', text, re.S).group(1)
    rows = [l.split() for l in body.splitlines() if l.strip() and not l.startswith("#")]
    cols = rows[0]
    return {(r[0], c): int(v) for r in rows[1:] for c, v in zip(cols, r[1:])}


BLOSUM62 = builtin_matrix("blosum62")
PAM250 = builtin_matrix("pam250")
NUC44 = builtin_matrix("nuc44")


def match_mismatch(match, mismatch):
    return lambda t, q: match if t == q and t in "ACGT" else mismatch


def lookup(table):
    return lambda t, q: table[(t, q)]


EXTRA_ARGS = os.environ.get("CUDP_ALIGN_ARGS", "").split()


def run(args, expect=0):
    p = subprocess.run([ALIGN] + args + EXTRA_ARGS, capture_output=True, text=True)
    if p.returncode != expect:
        fail("%s: exit status %d (stderr: %s)" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout


def column_types(top, bottom):
    return ["I" if b == "-" else "D" if t == "-" else "M" for t, b in zip(top, bottom)]


def runs_of(types):
    out = []
    for t in types:
        if out and out[-1][0] == t:
            out[-1][1] += 1
        else:
            out.append([t, 1])
    return out


def aligned_region(top, bottom, mode):
    """Column range of the alignment proper: semi-global end gaps are shown but not part of it."""
    if mode != "semiglobal":
        return 0, len(top)
    pairs = [k for k, (t, b) in enumerate(zip(top, bottom)) if t != "-" and b != "-"]
    return (pairs[0], pairs[-1] + 1) if pairs else (0, 0)


def score_rows(top, bottom, score, gap_open, gap_extend):
    s = 0
    for kind, n in runs_of(column_types(top, bottom)):
        if kind != "M":
            s -= gap_open + n * gap_extend
    for t, b in zip(top, bottom):
        if t != "-" and b != "-":
            s += score(b, t)  # matrix(target, query)
    return s


def parse_pair(text):
    """[(header dict, name1, name2, top, middle, bottom, rows)] with rows = [(name, start, seg, end)] per line."""
    out = []
    sections = text.split("#=======================================\n")
    # sections: [report header, alignment header, body, alignment header, body, ...]
    for k in range(1, len(sections) - 1, 2):
        head, body = sections[k], sections[k + 1]
        h = {}
        for line in head.splitlines():
            m = re.match(r"# (\S+): (.*)$", line)
            if m:
                h[m.group(1)] = m.group(2)
        lines = body.split("\n")
        if lines[0] != "":
            fail("pair: no blank line after the header")
        i, top, mid, bot, rows = 1, "", "", "", []
        while i + 2 < len(lines) and lines[i] != "" and not lines[i].startswith("#"):
            m1 = re.match(r"^(.{13}) ([ \d]{6,}) (\S+) ([ \d]{6,})$", lines[i])
            m3 = re.match(r"^(.{13}) ([ \d]{6,}) (\S+) ([ \d]{6,})$", lines[i + 2])
            if not m1 or not m3 or not lines[i + 1].startswith(" " * 21) or lines[i + 3] != "":
                fail("pair: malformed block at %r" % lines[i:i + 4])
                break
            seg = m1.group(3)
            if len(lines[i + 1]) != 21 + len(seg) or len(m3.group(3)) != len(seg) or len(seg) > 50:
                fail("pair: block widths differ: %r" % lines[i:i + 3])
            rows.append((m1.group(1), int(m1.group(2)), seg, int(m1.group(4)), m3.group(1), int(m3.group(2)),
                         m3.group(3), int(m3.group(4))))
            top += seg
            mid += lines[i + 1][21:]
            bot += m3.group(3)
            i += 4
        out.append((h, top, mid, bot, rows))
    if not text.endswith("#---------------------------------------\n#---------------------------------------\n"):
        fail("pair: the report does not end with EMBOSS's closing lines")
    return out


def pct(n, d):
    return "%4.1f" % (100.0 * n / d if d else 0.0)


def expected_pairs(queries, targets, pairs):
    if pairs == "one-to-one":
        return list(zip(queries, targets))
    return [(q, t) for q in queries for t in targets]


def check_config(label, qfile, tfile, mode, pairs, score, gaps, extra):
    queries, targets = read_fasta(qfile), read_fasta(tfile)
    expected = expected_pairs(queries, targets, pairs)
    base = ["--query", qfile, "--target", tfile, "--mode", mode, "--pairs", pairs] + extra
    g_open, g_ext = gaps
    what = "%s %s %s" % (label, mode, pairs)

    # score
    scores = [l.split("\t") for l in run(base + ["--format", "score"]).splitlines()]
    if [(r[0], r[1]) for r in scores] != [(q[0], t[0]) for q, t in expected]:
        fail(what + ": score rows are not the expected pairs in order")
        return

    # pair
    pair_text = run(base + ["--format", "pair"])
    alignments = parse_pair(pair_text)
    if len(alignments) != len(expected):
        fail("%s: %d pair alignments, expected %d" % (what, len(alignments), len(expected)))
        return
    regions = []
    for (h, top, mid, bot, rows), (q, t), sc in zip(alignments, expected, scores):
        who = "%s %s x %s" % (what, q[0], t[0])
        checked["pairs"] += 1
        checked["columns"] += len(top)
        if h.get("1") != q[0] or h.get("2") != t[0]:
            fail(who + ": wrong names in the header")
        qres, tres = top.replace("-", ""), bot.replace("-", "")
        if mode == "local":
            qoff, toff = (rows[0][1] - 1, rows[0][5] - 1) if rows else (0, 0)
            if q[1][qoff:qoff + len(qres)] != qres or t[1][toff:toff + len(tres)] != tres:
                fail(who + ": local rows are not a range of the sequences")
        else:
            qoff = toff = 0
            if qres != q[1] or tres != t[1]:
                fail(who + ": rows are not the whole sequences")
        # Coordinates and names, EMBOSS's rules.
        dq, dt = qoff, toff
        for (n1, s1, seg1, e1, n2, s2, seg2, e2) in rows:
            r1, r2 = len(seg1.replace("-", "")), len(seg2.replace("-", ""))
            if n1 != q[0][:13].ljust(13) or n2 != t[0][:13].ljust(13):
                fail(who + ": names not truncated to 13 columns: %r %r" % (n1, n2))
            if (s1, e1) != ((dq + 1) if r1 else dq, dq + r1) or (s2, e2) != ((dt + 1) if r2 else dt, dt + r2):
                fail(who + ": block coordinates %d-%d, %d-%d" % (s1, e1, s2, e2))
            dq, dt = dq + r1, dt + r2
        # Match line.
        # EMBOSS's marks (seen in needle's and water's output): positive pairs '|' if identical, else ':'; other
        # pairs '.', or ' ' if identical (N with N in NUC.4.4); gaps ' '.
        want = "".join(" " if a == "-" or b == "-" else ("|" if a == b else ":") if score(b, a) > 0
                       else (" " if a == b else ".") for a, b in zip(top, bot))
        if mid != want:
            fail(who + ": match line differs from the one recomputed")
        n = len(top)
        ident = sum(a == b for a, b in zip(top, bot))
        simil = sum(a != "-" and b != "-" and score(b, a) > 0 for a, b in zip(top, bot))
        gapc = sum(a == "-" or b == "-" for a, b in zip(top, bot))
        for key, value in (("Length", str(n)), ("Identity", "%d/%d (%s%%)" % (ident, n, pct(ident, n))),
                           ("Similarity", "%d/%d (%s%%)" % (simil, n, pct(simil, n))),
                           ("Gaps", "%d/%d (%s%%)" % (gapc, n, pct(gapc, n)))):
            if h.get(key, "").strip() != value:
                fail("%s: %s is %r, recomputed %r" % (who, key, h.get(key), value))
        lo, hi = aligned_region(top, bot, mode)
        s = score_rows(top[lo:hi], bot[lo:hi], score, g_open, g_ext)
        if h.get("Score") != "%.1f" % s or sc[2] != str(s):
            fail("%s: Score %s (score format %s), recomputed from the rows %d" % (who, h.get("Score"), sc[2], s))
        if h.get("Gap_penalty") != "%.1f" % g_open or h.get("Extend_penalty") != "%.1f" % g_ext:
            fail(who + ": gap costs in the header")
        regions.append((top[lo:hi], bot[lo:hi], qoff + len(top[:lo].replace("-", "")),
                        toff + len(bot[:lo].replace("-", "")), s))

    # tabular: from the pair rows of the same run.
    tab = [l.split("\t") for l in run(base + ["--format", "tabular"]).splitlines()]
    if len(tab) != len(expected):
        fail(what + ": tabular has %d rows" % len(tab))
        return
    for row, (q, t), (top, bot, q0, t0, s) in zip(tab, expected, regions):
        who = "%s %s x %s tabular" % (what, q[0], t[0])
        if len(row) != 14:
            fail(who + ": %d columns" % len(row))
            continue
        types = column_types(top, bot)
        n = len(top)
        ident = sum(a == b for a, b in zip(top, bot))
        mism = sum(a != b and a != "-" and b != "-" for a, b in zip(top, bot))
        gopen = sum(1 for k, _ in runs_of(types) if k != "M")
        qlen, tlen = len(top.replace("-", "")), len(bot.replace("-", ""))
        want = [q[0], t[0], "%.3f" % (100.0 * ident / n if n else 0), str(n), str(mism), str(gopen),
                str(q0 + 1), str(q0 + qlen), str(t0 + 1), str(t0 + tlen)]
        if row[:10] != want:
            fail("%s: %s, recomputed %s" % (who, row[:10], want))
        cig = cigar_runs(top, bot)
        if row[12] != str(s) or row[13] != cig:
            fail("%s: score/CIGAR %s %s, recomputed %d %s" % (who, row[12], row[13], s, cig))
        if mode == "local" and label.startswith("protein BLOSUM62 11/1"):
            lam, K = 0.267, 0.041  # BLAST's gapped parameters of BLOSUM62 at 11/1
            e = K * len(q[1]) * len(t[1]) * math.exp(-lam * s)
            bits = (lam * s - math.log(K)) / math.log(2)
            # At the printed precision: one raw score point moves the bit score 0.385 bits and the E-value 31%.
            if (row[10], row[11]) != (blast_evalue(e), blast_bits(bits)):
                fail("%s: E-value %s bits %s, recomputed %s %s" % (who, row[10], row[11], blast_evalue(e),
                                                                  blast_bits(bits)))
        elif mode != "local" and (row[10], row[11]) != ("-", "-"):
            fail(who + ": E-value outside local mode")

    # sam
    sam = run(base + ["--format", "sam"]).splitlines()
    sq = [l.split("\t") for l in sam if l.startswith("@SQ")]
    if [(r[1], r[2]) for r in sq] != [("SN:" + n, "LN:%d" % len(s)) for n, s in targets]:
        fail(what + ": @SQ lines are not the targets")
    if not sam[0].startswith("@HD\tVN:") or not any(l.startswith("@PG\tID:cudp-align") for l in sam):
        fail(what + ": @HD or @PG missing")
    recs = [l.split("\t") for l in sam if not l.startswith("@")]
    if len(recs) != len(expected):
        fail(what + ": %d SAM records" % len(recs))
        return
    primary = {}
    for r, (q, t), sc in zip(recs, expected, scores):
        who = "%s %s x %s sam" % (what, q[0], t[0])
        flag = int(r[1])
        if r[0] != q[0] or r[9] != q[1] or r[10] != "*" or "AS:i:" + sc[2] not in r[11:]:
            fail(who + ": QNAME, SEQ, QUAL or AS wrong")
        if flag & 256 == 0:
            primary[q[0]] = primary.get(q[0], 0) + 1
        if flag & 4:
            continue
        if r[2] != t[0] or r[4] != "255":
            fail(who + ": RNAME or MAPQ")
        ops = re.findall(r"(\d+)([=XIDS])", r[5])
        if "".join(a + b for a, b in ops) != r[5]:
            fail(who + ": CIGAR %s has other operations" % r[5])
            continue
        qi, ti, nm = 0, int(r[3]) - 1, 0
        for c, op in ops:
            c = int(c)
            if op in "=X":
                for k in range(c):
                    if (q[1][qi + k] == t[1][ti + k]) != (op == "="):
                        fail(who + ": %s column at query %d, target %d" % (op, qi + k + 1, ti + k + 1))
                qi, ti = qi + c, ti + c
            elif op in "IS":
                qi += c
            else:
                ti += c
            nm += c if op in "XID" else 0
        if qi != len(q[1]) or ti > len(t[1]) or int(r[3]) < 1:
            fail(who + ": CIGAR %s consumes %d query residues of %d, ends at target %d of %d"
                 % (r[5], qi, len(q[1]), ti, len(t[1])))
        if "NM:i:%d" % nm not in r[11:]:
            fail(who + ": NM recomputed %d: %s" % (nm, r[11:]))
    if any(v != 1 for v in primary.values()) or len(primary) != len({q[0] for q, _ in expected}):
        fail(what + ": not one primary record per query: %s" % primary)
    return pair_text


def main():
    pa, pb = os.path.join(DATA, "globins_a.fa"), os.path.join(DATA, "globins_b.fa")
    da, db = os.path.join(DATA, "dna_a.fa"), os.path.join(DATA, "dna_b.fa")
    for mode in ("global", "local", "semiglobal"):
        for pairs in ("one-to-one", "all"):
            check_config("protein BLOSUM62 11/1", pa, pb, mode, pairs, lookup(BLOSUM62), (11, 1), [])
        check_config("protein PAM250 14/2", pa, pb, mode, "all", lookup(PAM250), (14, 2),
                     ["--matrix", "PAM250", "--gap-open", "14", "--gap-extend", "2"])
        check_config("DNA +2/-3 5/2", da, db, mode, "one-to-one", match_mismatch(2, -3), (5, 2), [])
        check_config("DNA +1/-1 3/1", da, db, mode, "one-to-one", match_mismatch(1, -1), (3, 1),
                     ["--match", "1", "--mismatch", "-1", "--gap-open", "3", "--gap-extend", "1"])
        check_config("DNA NUC.4.4 10/1", da, db, mode, "one-to-one", lookup(NUC44), (10, 1),
                     ["--matrix", "NUC.4.4", "--gap-open", "10", "--gap-extend", "1"])
        check_config("DNA self", da, da, mode, "all", match_mismatch(2, -3), (5, 2), [])

    # --out writes what standard output gets (but for the Report_file line), and --threads does not change it.
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "o.txt")
        base = ["--query", pa, "--target", pb, "--pairs", "all"]
        stdout = run(base + ["--threads", "1"])
        run(base + ["--out", out])
        # The report header echoes the command line; the alignments start at the first '#=====' line.
        body = lambda text: text[text.find("#======="):]
        if not os.path.exists(out) or body(open(out).read()) != body(stdout) or "# Report_file: " + out not in open(out).read():
            fail("--out differs from standard output")
        records = lambda text: [l for l in text.splitlines() if not l.startswith("@")]
        if records(run(base + ["--threads", "3", "--format", "sam"])) != records(run(base + ["--threads", "1", "--format", "sam"])):
            fail("--threads changes the output")
        if os.listdir(d) != ["o.txt"]:
            fail("--out left other files: %s" % os.listdir(d))

    if failures:
        print("%d failure(s)" % failures)
        sys.exit(1)
    print("all formats agree with the recomputation: %d alignments, %d columns" % (checked["pairs"], checked["columns"]))


def blast_evalue(e):
    """An E-value as BLAST+ prints it."""
    if e < 1.0e-180:
        return "0.0"
    return ("%.2e" if e < 0.0009 else "%.3f" if e < 0.1 else "%.2f" if e < 1.0 else "%.1f" if e < 10.0 else "%.0f") % e


def blast_bits(bits):
    """A bit score as BLAST+ prints it: %.1f, truncated to a whole number past 99.9, %.3e past 9999."""
    if bits > 9999:
        return "%.3e" % bits
    return str(int(bits)) if bits > 99.9 else "%.1f" % bits


def cigar_runs(top, bot):
    """The extended CIGAR of two gapped rows: = identical letters, X different, I query letter against a gap, D
    target letter against a gap."""
    out = []
    for a, b in zip(top, bot):
        k = "I" if b == "-" else "D" if a == "-" else ("=" if a == b else "X")
        if out and out[-1][0] == k:
            out[-1][1] += 1
        else:
            out.append([k, 1])
    return "".join("%d%s" % (c, k) for k, c in out)


if __name__ == "__main__":
    main()
