#!/usr/bin/env python3
"""Sum-of-pairs (SP) and total-column (TC) scores of a test alignment against a reference alignment, as BAliBASE
defines them: SP is the fraction of the residue pairs aligned in the reference's scored columns that the test
alignment also aligns; TC is the fraction of those columns the test reproduces whole. Scored columns: every column
of the reference with at least two residues, or with --upper, only columns whose residues are upper case (the match
states of a Stockholm or `hmmemit -a` alignment).

Usage: msa_accuracy.py REFERENCE TEST [--upper]. Both aligned FASTA, CLUSTAL (.aln) or Stockholm; sequences are
matched by name and must have the same residues (case and gaps aside). Prints "SP TC scored_columns".
"""
import sys


def read_alignment(path):
    """Name -> aligned row, from aligned FASTA, CLUSTAL or Stockholm (rows of a name concatenated in file order)."""
    rows, order = {}, []
    with open(path) as f:
        lines = f.read().splitlines()
    if lines and lines[0].startswith(">"):
        name = None
        for line in lines:
            if line.startswith(">"):
                name = line[1:].split()[0]
                order.append(name)
                rows[name] = ""
            elif name is not None:
                rows[name] += line.strip()
        return order, rows
    for line in lines:
        if not line.strip() or line.startswith(("#", "//", "CLUSTAL", " ")) or line.startswith("\t"):
            continue
        fields = line.split()
        if len(fields) < 2:
            continue
        name, row = fields[0], fields[1]
        if name not in rows:
            order.append(name)
            rows[name] = ""
        rows[name] += row
    return order, rows


def residue_columns(row, upper_only):
    """For each residue of a row (in order): the column it sits in, and whether that column may be scored."""
    out = []
    for column, c in enumerate(row):
        if c.isalpha():
            out.append((column, not upper_only or c.isupper()))
    return out


def scores(reference, test, upper_only=False):
    names, ref_rows = reference
    _, test_rows = test
    missing = [n for n in names if n not in test_rows]
    if missing:
        raise ValueError(f"{len(missing)} reference sequences missing from the test alignment, e.g. {missing[0]}")
    # For every sequence, residue k's column in the reference and in the test.
    ref_cols, test_cols = {}, {}
    for n in names:
        r, t = residue_columns(ref_rows[n], upper_only), residue_columns(test_rows[n], False)
        if len(r) != len(t):
            raise ValueError(f"{n}: {len(r)} residues in the reference, {len(t)} in the test")
        ref_cols[n], test_cols[n] = r, [c for c, _ in t]
    # Reference column -> [(sequence, test column)] of its scored residues.
    by_column = {}
    for n in names:
        for k, (column, scored) in enumerate(ref_cols[n]):
            if scored:
                by_column.setdefault(column, []).append(test_cols[n][k])
    pairs = kept = columns = whole = 0
    for members in by_column.values():
        if len(members) < 2:
            continue
        columns += 1
        count = {}
        for c in members:
            count[c] = count.get(c, 0) + 1
        pairs += len(members) * (len(members) - 1) // 2
        kept += sum(v * (v - 1) // 2 for v in count.values())
        whole += len(count) == 1
    return (kept / pairs if pairs else 0.0), (whole / columns if columns else 0.0), columns


def main():
    args = [a for a in sys.argv[1:] if a != "--upper"]
    if len(args) != 2:
        print(__doc__)
        return 2
    sp, tc, columns = scores(read_alignment(args[0]), read_alignment(args[1]), "--upper" in sys.argv)
    print(f"{sp:.4f} {tc:.4f} {columns}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
