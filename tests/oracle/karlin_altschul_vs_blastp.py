#!/usr/bin/env python3
"""cudp's gapped Karlin-Altschul table against NCBI BLAST's, entry by entry.

blastp reports the gapped lambda, K and H it uses for a matrix and gap cost (its footer's "Gapped" line) from its
own copy of the published table; it refuses gap costs that the table lacks. For every (matrix, open, extend) the
driver prints, blastp must accept the cost and print the same three numbers to its printed precision (three
significant digits).

Usage: karlin_altschul_vs_blastp.py DRIVER BLASTP
"""
import os
import subprocess
import sys
import tempfile

QUERY = "MKVLAAGIVGLLLAAHCSSPEWTRSAIEVKVGEQAHLRCWAAYSDGQKMQVLNDTRWHEGSPPYTQAYKMWC"
SUBJECT = "MKVLAAGIVALLLAAHCSSPEWTRGAIEVKVGEQAHLRCWAAYSDGQKMQVLNDSRWHEGSPPYTQAYKMWCAAA"


def blast_gapped(blastp, query, subject, matrix, gap_open, gap_extend):
    out = subprocess.run([blastp, "-query", query, "-subject", subject, "-matrix", matrix,
                          "-gapopen", str(gap_open), "-gapextend", str(gap_extend), "-comp_based_stats", "0"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip()
    lines = out.stdout.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == "Gapped" and i + 2 < len(lines) and lines[i + 1].split()[:3] == ["Lambda", "K", "H"]:
            return [float(v) for v in lines[i + 2].split()[:3]], None
    return None, "no 'Gapped' Lambda/K/H lines in blastp's report"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    driver, blastp = sys.argv[1:]
    rows = [line.split() for line in subprocess.run([driver], capture_output=True, text=True, check=True).stdout.splitlines()]
    if not rows:
        sys.exit("karlin_altschul_vs_blastp: the driver printed no table")
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        query, subject = os.path.join(tmp, "q.fa"), os.path.join(tmp, "s.fa")
        with open(query, "w") as f:
            f.write(">q\n%s\n" % QUERY)
        with open(subject, "w") as f:
            f.write(">s\n%s\n" % SUBJECT)
        for matrix, gap_open, gap_extend, *ours in rows:
            ours = [float(v) for v in ours]
            theirs, error = blast_gapped(blastp, query, subject, matrix, gap_open, gap_extend)
            where = "%s %s/%s" % (matrix, gap_open, gap_extend)
            if theirs is None:
                print("FAIL %s: blastp: %s" % (where, error))
                failures += 1
                continue
            for name, mine, blast in zip(("lambda", "K", "H"), ours, theirs):
                if float("%.3g" % mine) != blast:
                    print("FAIL %s: %s is %.3g in cudp, %g in blastp" % (where, name, mine, blast))
                    failures += 1
    print("karlin_altschul_vs_blastp: %d entries, %d values compared, %d differences" % (len(rows), 3 * len(rows), failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
