#!/usr/bin/env python3
"""cudp-align's pair format and scores against EMBOSS (package emboss): needle with end gaps charged (-endweight)
for --mode global, needle's default (end gaps free) for --mode semiglobal, water for --mode local.

cudp's gap of length k costs OPEN + k*EXTEND; EMBOSS's costs GAPOPEN + (k-1)*GAPEXTEND, so cudp --gap-open O
--gap-extend E is EMBOSS -gapopen O+E -gapextend E (and -endopen O+E -endextend E). For every pair the scores must be
equal; where both tools chose the same alignment (same rows; ties may be broken differently), everything from
'# Length:' to the end of the alignment must be byte for byte the same, and each mode must have such pairs.

    align_vs_emboss.py CUDP_ALIGN NEEDLE WATER DATA_DIR   (DATA_DIR: apps/data/align)
"""
import os
import re
import subprocess
import sys
import tempfile

ALIGN, NEEDLE, WATER, DATA = sys.argv[1:5]
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def records(path):
    out, name = [], None
    for line in open(path):
        if line.startswith(">"):
            out.append([line, ""])
        elif line.strip():
            out[-1][1] += line
    return out


def alignment_part(text):
    """From '# Length:' to the end of the first alignment, and its rows."""
    start = text.index("# Length:")
    end = text.index("#-----", start) if "#-----" in text[start:] else len(text)
    part = text[start:end]
    rest = part.split("#=======================================\n", 1)[1]
    if "\n#=======" in rest:
        part = part[: part.index("\n#=======") + 1]
    rows = re.findall(r"^.{13} +\d+ (\S+) +\d+$", part, re.M)
    score = re.search(r"^# Score: (\S+)$", part, re.M).group(1)
    return part, rows, score


def main():
    work = tempfile.mkdtemp()
    sets = [("protein", "globins_a.fa", "globins_b.fa", "BLOSUM62", "EBLOSUM62", [(11, 1), (10, 2)], "-sprotein1"),
            ("DNA", "dna_a.fa", "dna_b.fa", "NUC.4.4", "EDNAFULL", [(10, 1)], "-snucleotide1")]
    same = {}
    for kind, qa, tb, matrix, ematrix, gap_settings, stype in sets:
        pairs = [(q, t) for q in records(os.path.join(DATA, qa)) for t in records(os.path.join(DATA, tb))]
        for n, (q, t) in enumerate(pairs):
            qf, tf = os.path.join(work, "q%d.fa" % n), os.path.join(work, "t%d.fa" % n)
            open(qf, "w").write("".join(q))
            open(tf, "w").write("".join(t))
            for gap_open, gap_extend in gap_settings:
                eo, ee = str(gap_open + gap_extend), str(gap_extend)
                for mode in ("global", "semiglobal", "local"):
                    ours = subprocess.run([ALIGN, "--query", qf, "--target", tf, "--mode", mode, "--matrix", matrix,
                                           "--gap-open", str(gap_open), "--gap-extend", str(gap_extend)],
                                          capture_output=True, text=True)
                    if ours.returncode != 0:
                        fail("cudp-align %s: %s" % (mode, ours.stderr))
                        continue
                    out = os.path.join(work, "emboss.txt")
                    tool = WATER if mode == "local" else NEEDLE
                    cmd = [tool, "-asequence", qf, "-bsequence", tf, "-datafile", ematrix, "-gapopen", eo,
                           "-gapextend", ee, stype, stype.replace("1", "2"), "-outfile", out, "-auto"]
                    if mode == "global":
                        cmd += ["-endweight", "-endopen", eo, "-endextend", ee]
                    subprocess.run(cmd, check=True, capture_output=True)
                    theirs = open(out).read()
                    a, rows_a, score_a = alignment_part(ours.stdout)
                    b, rows_b, score_b = alignment_part(theirs)
                    who = "%s %s x %s %d/%d %s" % (kind, q[0].split()[0][1:], t[0].split()[0][1:], gap_open,
                                                   gap_extend, mode)
                    if score_a != score_b:
                        fail("%s: score %s, EMBOSS %s" % (who, score_a, score_b))
                    if rows_a == rows_b:
                        same[mode] = same.get(mode, 0) + 1
                        if a != b:
                            fail("%s: same alignment, different text:\n%s\n---- EMBOSS:\n%s" % (who, a, b))
                    print("ok: %s: score %s%s" % (who, score_a, ", same alignment" if rows_a == rows_b else ""))
    for mode in ("global", "semiglobal", "local"):
        if same.get(mode, 0) == 0:
            fail("no %s pair with the same alignment as EMBOSS: the layout was not compared" % mode)
    if failures:
        print("%d failure(s)" % failures)
        sys.exit(1)
    print("scores equal EMBOSS's; identical alignments printed identically (%s)" %
          ", ".join("%s %d" % kv for kv in sorted(same.items())))


if __name__ == "__main__":
    main()
