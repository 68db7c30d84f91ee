"""What the oracles of cudp-phmmer and cudp-hmmscan share: FASTA read and written, and a HMMER program's outputs
read, normalized where they name the program, its version, times or paths, and compared line by line with cudp's."""


def read_fasta(path):
    records, name, desc, seq = [], None, "", []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith(">"):
                if name is not None:
                    records.append((name, desc, "".join(seq)))
                words = line[1:].split(None, 1)
                name, desc, seq = words[0], (words[1] if len(words) > 1 else ""), []
            elif name is not None:
                seq.append(line.strip())
    if name is not None:
        records.append((name, desc, "".join(seq)))
    return records


def write_fasta(path, records):
    with open(path, "w") as f:
        for name, desc, seq in records:
            f.write(">%s%s\n" % (name, (" " + desc) if desc else ""))
            for i in range(0, len(seq), 60):
                f.write(seq[i:i + 60] + "\n")


TRAILER = ("# Program:", "# Version:", "# Option settings:", "# Current dir:", "# Date:")


def lines_of(path):
    with open(path) as f:
        return f.read().split("\n")


def normalized(path, kind, prefix, program):
    """The lines of an output of `program` (or cudp-`program`) written under the path prefix `prefix`; kind is
    "main", "table" or "stockholm"."""
    out = []
    for line in lines_of(path):
        if kind == "main":
            if line.startswith(("# CPU time:", "# Mc/sec:")):
                line = line.split(":")[0] + ": <time>"
            elif line.startswith(("# %s ::" % program, "# cudp-%s ::" % program, "# HMMER 3.3.2", "# cudp ",
                                  "# Copyright", "# Freely", "# number of worker threads:", "# cudp backend:")):
                continue
            line = line.replace(prefix, "<output>.")
        elif kind == "table":
            if line.startswith(TRAILER):
                line = line.split(":")[0] + ": <normalized>"
        elif kind == "stockholm":
            if line.startswith("#=GF AU "):
                line = "#=GF AU <program>"
        out.append(line)
    return out


def compare(what, theirs, ours, failures, program):
    """Appends the first differing lines (at most about 20) to failures; returns the lines compared."""
    for i in range(max(len(theirs), len(ours))):
        a = theirs[i] if i < len(theirs) else "<none>"
        b = ours[i] if i < len(ours) else "<none>"
        if a != b:
            failures.append("%s line %d:\n  %s:      %s\n  cudp-%s: %s" % (what, i + 1, program, a, program, b))
            if len(failures) > 20:
                break
    return len(theirs)


def compare_outputs(program, theirs, ours, outputs):
    """Both runs' outputs, named by the path prefixes `theirs` and `ours` plus each extension of `outputs` ((extension,
    kind) pairs), normalized and compared. Returns the lines compared and the failures."""
    failures, compared = [], 0
    for ext, kind in outputs:
        compared += compare(ext, normalized(theirs + ext, kind, theirs, program),
                            normalized(ours + ext, kind, ours, program), failures, program)
    return compared, failures


def table_rows(path):
    return sum(1 for line in lines_of(path) if line and not line.startswith("#"))
