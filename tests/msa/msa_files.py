"""Files the msa tests read and write: Stockholm rows, FASTA, the lambda genome, and the first line where a
program's output differs from clustalw's."""
import gzip
import re


def stockholm_rows(path):
    """(name, aligned row) of a Stockholm file in file order, the blocks of an interleaved file joined."""
    rows, order = {}, []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#") or line.startswith("//"):
                continue
            name, text = line.split()
            if name not in rows:
                order.append(name)
                rows[name] = ""
            rows[name] += text
    return [(name, rows[name]) for name in order]


def stockholm_unaligned(path, limit=None):
    """The first `limit` (all by default) sequences of a Stockholm file, gaps removed, in upper case."""
    records = stockholm_rows(path)
    return [(name, re.sub(r"[-.]", "", row).upper()) for name, row in (records[:limit] if limit else records)]


def write_fasta(path, records, width=60):
    with open(path, "w") as f:
        for name, seq in records:
            f.write(f">{name}\n")
            for k in range(0, len(seq), width):
                f.write(seq[k : k + width] + "\n")


def read_genome(path):
    """A one-record FASTA file (plain or gzip) as one upper-case string."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return "".join(line.strip() for line in f if not line.startswith(">")).upper()


def first_difference(expected, got):
    """The first line where `got` (bytes) differs from clustalw's `expected`."""
    a, b = expected.decode(errors="replace").split("\n"), got.decode(errors="replace").split("\n")
    for k in range(max(len(a), len(b))):
        x = a[k] if k < len(a) else "<end>"
        y = b[k] if k < len(b) else "<end>"
        if x != y:
            return f"line {k + 1}:\n    clustalw: {x!r}\n    cudp:     {y!r}"
    return "no line differs"
