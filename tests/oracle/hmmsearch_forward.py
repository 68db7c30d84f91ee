#!/usr/bin/env python3
"""Compares cudp's reference Plan7 Forward scores with hmmsearch 3.3.2.

For each model of the hmmer-examples package, the targets are the package's example sequences of the model's
alphabet plus sequences sampled from the model itself with hmmemit (fixed seeds), so that every model sees true
hits, partial hits, multi-domain hits and unrelated sequences. hmmsearch runs with every filter off (--max), no null2
correction (--nonull2) and one target (-Z 1, --domZ 1), so that its per-sequence score is the Forward score of the
whole sequence minus the null1 score, in bits, and its E-value is the Forward P-value.

Two things of hmmsearch's reporting are not Forward:
  - a sequence in which domain definition finds no domain is not reported at all (nothing to compare);
  - when the sum of a sequence's domain envelope scores beats its Forward score, hmmsearch reports that sum
    instead (p7_pipeline: "let sum_score override the seq_score when it's better"). The script recomputes that
    sum from --domtblout and counts such hits separately. For them the table says nothing about Forward, so
    HMMER's own Forward score is read under gdb (hmmsearch_filters.hmmer_scores: p7_ForwardParser's raw score
    inside p7_Pipeline) and ours must agree with it within float rounding (FORWARD_GDB_TOLERANCE); the domain
    sum must also beat it, as the override requires. Without gdb these hits fail: no allowance is left.
tblout prints scores with one decimal, so a Forward score agrees when it is within 0.05 bits (plus float slack)
of hmmsearch's; E-values have two significant digits and must agree within that rounding.

Usage: hmmsearch_forward.py DRIVER EXAMPLES_DIR [HMMSEARCH [HMMEMIT]] [--gdb GDB]
Exit status 0 when every reported sequence agrees, 1 otherwise.
"""
import gzip
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

LN2 = 0.69314718055994529
SCORE_TOLERANCE = 0.05 + 1e-3  # tblout rounding to 0.1 bit, plus float rounding in hmmsearch's Forward
FLOAT_SCORE_TOLERANCE = 0.05 + 5e-3  # our Forward in float log space drifts ~1e-3 bits per 2,500 residues
FORWARD_GDB_TOLERANCE = 5e-3  # our double DP against HMMER's float parser, unrounded
PVALUE_RELATIVE_TOLERANCE = 0.06  # two significant digits, plus the score's own rounding

PROTEIN_TARGETS = [
    "tutorial/globins45.fa", "tutorial/7LESS_DROME", "tutorial/HBB_HUMAN", "testsuite/PAX8_HUMAN",
    "testsuite/20aa-alitest.fa",
]
DNA_TARGETS = ["testsuite/ecori.fa", "testsuite/3box-alitest.fa.gz"]

MODELS = [
    ("tutorial/globins4.hmm", PROTEIN_TARGETS),
    ("tutorial/fn3.hmm", PROTEIN_TARGETS),
    ("tutorial/Pkinase.hmm", PROTEIN_TARGETS),
    ("tutorial/MADE1.hmm", DNA_TARGETS + ["tutorial/dna_target.fa"]),
    ("testsuite/20aa.hmm.gz", PROTEIN_TARGETS),
    ("testsuite/2OG-FeII_Oxy_3.hmm.gz", PROTEIN_TARGETS),
    ("testsuite/Caudal_act.hmm.gz", PROTEIN_TARGETS),
    ("testsuite/LuxC.hmm.gz", PROTEIN_TARGETS),
    ("testsuite/Patched.hmm.gz", PROTEIN_TARGETS),
    ("testsuite/RRM_1.hmm.gz", PROTEIN_TARGETS),
    ("testsuite/SMC_N.hmm.gz", PROTEIN_TARGETS),
    ("testsuite/M1.hmm", PROTEIN_TARGETS),
    ("testsuite/XYPPX.hmm", PROTEIN_TARGETS),
    ("testsuite/PSE.hmm", DNA_TARGETS),
    ("testsuite/ecori.hmm", DNA_TARGETS),
    ("testsuite/3box.hmm.gz", DNA_TARGETS),
    ("testsuite/2OG-FeII_Oxy_3-nt.hmm.gz", DNA_TARGETS),
]


def read_text(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return f.read()


def swissprot_records(text):
    """The ID and SQ sections of Swiss-Prot flat files (7LESS_DROME, PAX8_HUMAN come that way)."""
    name, seq, in_sequence = None, [], False
    for line in text.splitlines():
        if line.startswith("ID "):
            name, seq, in_sequence = line.split()[1], [], False
        elif line.startswith("SQ "):
            in_sequence = True
        elif line.startswith("//"):
            if name is not None:
                yield name, "".join(seq)
            name, in_sequence = None, False
        elif in_sequence:
            seq.append("".join(line.split()))


def fasta_records(text):
    if text.startswith("ID "):
        yield from swissprot_records(text)
        return
    name, lines = None, []
    for line in text.splitlines():
        if line.startswith(">"):
            if name is not None:
                yield name, "".join(lines)
            name, lines = line[1:].split()[0], []
        elif name is not None:
            lines.append(line.strip())
    if name is not None:
        yield name, "".join(lines)


def hmmemit(hmmemit_path, model, args):
    out = subprocess.run([hmmemit_path] + args + [model], check=True, capture_output=True, text=True).stdout
    return list(fasta_records(out))


def build_targets(hmmemit_path, model, examples, target_files, path):
    """Example sequences plus samples: full-length from the core model, and multihit local from the profile."""
    records = []
    for target in target_files:
        records += list(fasta_records(read_text(os.path.join(examples, target))))
    records += [("core-" + n, s) for n, s in hmmemit(hmmemit_path, model, ["-N", "6", "--seed", "11"])]
    records += [("local-" + n, s) for n, s in hmmemit(hmmemit_path, model, ["-p", "-N", "8", "--seed", "17"])]
    records += [("short-" + n, s) for n, s in hmmemit(hmmemit_path, model, ["-p", "-L", "40", "-N", "4", "--seed", "5"])]
    # hmmsearch refuses targets over 100,000 residues (nhmmer's territory); cut long ones into 40 kb pieces.
    pieces = []
    for name, seq in records:
        if len(seq) <= 100000:
            pieces.append((name, seq))
        else:
            pieces += [("%s/%d" % (name, i // 40000 + 1), seq[i:i + 40000]) for i in range(0, len(seq), 40000)]
    return write_unique_fasta(pieces, path)


def write_unique_fasta(records, path):
    """Writes (name, sequence) records as FASTA, keeping the first of each name and no empty sequence; returns
    how many were written."""
    seen, unique = set(), []
    for name, seq in records:
        if name in seen or not seq:
            continue
        seen.add(name)
        unique.append((name, seq))
    with open(path, "w") as f:
        for name, seq in unique:
            f.write(">%s\n" % name)
            for i in range(0, len(seq), 60):
                f.write(seq[i:i + 60] + "\n")
    return len(unique)


STATISTICS_LINE = re.compile(r"^(Target sequences|Passed (?:MSV|bias|Vit|Fwd) filter):\s+(\d+)")


def pipeline_counts(path):
    """The counts of hmmsearch's pipeline statistics in a main output file, by label ("Passed MSV filter")."""
    counts = {}
    with open(path) as f:
        for line in f:
            m = STATISTICS_LINE.match(line)
            if m:
                counts[m.group(1)] = int(m.group(2))
    return counts


def table_rows(path):
    with open(path) as f:
        for line in f:
            if not line.startswith("#") and line.strip():
                yield line.split()


def null1(n):
    # Same float/double mix as HMMER's p7_bg_NullOne; float rounding is irrelevant at 0.1-bit resolution.
    p1 = n / (n + 1.0)
    return n * math.log(p1) + math.log(1.0 - p1)


def domain_sum_bits(domains, n):
    """hmmsearch's 'reconstruction score' without null2, from the domains' bit scores and envelopes."""
    nullsc = null1(n)
    flank = math.log(n / (n + 3.0))
    total, covered = 0.0, 0
    for bits, env_from, env_to in domains:
        length = env_to - env_from + 1
        envsc = bits * LN2 + nullsc - (n - length) * flank
        if envsc > 0:
            total += envsc
            covered += length
    if covered == 0:
        return None
    total += (n - covered) * flank
    return (total - nullsc) / LN2


def hmmer_forward_bits(gdb, model, names, targets, lengths, work):
    """HMMER's own Forward scores (bits, null1 only) of the named targets, read under gdb; {} without gdb."""
    if not gdb or not names:
        return {}
    from hmmsearch_filters import hmmer_scores, nats  # noqa: E402 (it imports this module)
    subset = os.path.join(work, "override.fa")
    write_unique_fasta([(n, s) for n, s in fasta_records(open(targets).read()) if n in names], subset)
    scores = hmmer_scores(gdb, gdb_utest(work), model, subset, work)
    return {n: (nats(scores[n][5]) - null1(lengths[n])) / LN2 for n in scores}


def gdb_utest(work):
    return os.path.join(work, "hmmpgmd2msa_utest")


def compare_model(driver, hmmsearch, hmmemit_path, examples, model_rel, target_files, work, gdb=None):
    model = os.path.join(examples, model_rel)
    targets = os.path.join(work, "targets.fa")
    count = build_targets(hmmemit_path, model, examples, target_files, targets)
    tblout, domtblout = os.path.join(work, "t.tbl"), os.path.join(work, "d.tbl")
    subprocess.run([hmmsearch, "--max", "--nonull2", "-Z", "1", "--domZ", "1", "--cpu", "1", "--seed", "42",
                    "--tblout", tblout, "--domtblout", domtblout, "-o", os.devnull, model, targets], check=True)
    ours = {}
    out = subprocess.run([driver, model, targets], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        _, name, length, fwd_bits, _, fwd_p, _, fwd_bits_f32, _ = line.split("\t")
        ours[name] = (int(length), float(fwd_bits), float(fwd_p), float(fwd_bits_f32))

    domains = {}
    for row in table_rows(domtblout):
        domains.setdefault(row[0], []).append((float(row[13]), int(row[19]), int(row[20])))

    failures, forward_diffs, float_diffs, overrides = [], [], [], 0
    rows = list(table_rows(tblout))
    close = {r[0] for r in rows if r[0] in ours and abs(ours[r[0]][1] - float(r[5])) <= SCORE_TOLERANCE}
    hmmer_forward = hmmer_forward_bits(gdb, model, {r[0] for r in rows if r[0] in ours} - close, targets,
                                       {n: v[0] for n, v in ours.items()}, work)
    for row in rows:
        name, evalue, score = row[0], float(row[4]), float(row[5])
        if name not in ours:
            failures.append("%s: hmmsearch reports %s, which the driver did not score" % (model_rel, name))
            continue
        length, fwd_bits, fwd_p, fwd_bits_f32 = ours[name]
        diff = fwd_bits - score
        if abs(diff) <= SCORE_TOLERANCE:
            forward_diffs.append(abs(diff))
            float_diffs.append(abs(fwd_bits_f32 - score))
            if float_diffs[-1] > FLOAT_SCORE_TOLERANCE:
                failures.append("%s %s (L=%d): float Forward %.4f bits, hmmsearch %.1f" %
                                (model_rel, name, length, fwd_bits_f32, score))
            if evalue > 0 and abs(fwd_p / evalue - 1.0) > PVALUE_RELATIVE_TOLERANCE:
                failures.append("%s %s: P-value %.3g, hmmsearch E-value (Z=1) %.3g" % (model_rel, name, fwd_p, evalue))
            continue
        reconstructed = domain_sum_bits(domains.get(name, []), length)
        ndom = len(domains.get(name, []))
        theirs = hmmer_forward.get(name)
        if (reconstructed is not None and theirs is not None and abs(fwd_bits - theirs) <= FORWARD_GDB_TOLERANCE
                and score > theirs + 0.05 - SCORE_TOLERANCE and abs(reconstructed - score) <= 0.05 * (ndom + 1) + 2e-3):
            overrides += 1
            continue
        failures.append("%s %s (L=%d): Forward %.4f bits, hmmsearch %.1f (domain sum %s, HMMER's own Forward %s)" %
                        (model_rel, name, length, fwd_bits, score,
                         "n/a" if reconstructed is None else "%.2f" % reconstructed,
                         "not read: gdb missing" if theirs is None else "%.4f" % theirs))
    return count, forward_diffs, float_diffs, overrides, failures


def take_option(args, flag):
    """Removes `flag VALUE` from args (a list) and returns VALUE, or None where the flag is absent."""
    if flag not in args:
        return None
    i = args.index(flag)
    value = args[i + 1]
    del args[i:i + 2]
    return value


def tool_arguments(argv, usage):
    """DRIVER EXAMPLES_DIR [HMMSEARCH [HMMEMIT]] -> the four paths, or an exit status when they are not all there."""
    if len(argv) < 3:
        print(usage)
        return 2
    hmmsearch = argv[3] if len(argv) > 3 else shutil.which("hmmsearch")
    hmmemit_path = argv[4] if len(argv) > 4 else shutil.which("hmmemit")
    if not hmmsearch or not hmmemit_path:
        print("hmmsearch/hmmemit not found")
        return 1
    return argv[1], argv[2], hmmsearch, hmmemit_path


def main():
    args = list(sys.argv)
    gdb = take_option(args, "--gdb")
    tools = tool_arguments(args, __doc__)
    if isinstance(tools, int):
        return tools
    driver, examples, hmmsearch, hmmemit_path = tools
    gdb = gdb or shutil.which("gdb")
    all_failures, total_targets, total_compared, total_overrides, worst, worst_f32 = [], 0, 0, 0, 0.0, 0.0
    with tempfile.TemporaryDirectory() as work:
        utest_gz = os.path.join(examples, "src/hmmpgmd2msa_utest.gz")
        if gdb and os.path.exists(utest_gz):
            with gzip.open(utest_gz, "rb") as f, open(gdb_utest(work), "wb") as out:
                out.write(f.read())
            os.chmod(gdb_utest(work), 0o755)
        else:
            print("gdb or %s missing: hits whose score is hmmsearch's domain sum will fail" % utest_gz)
            gdb = None
        for model_rel, target_files in MODELS:
            count, diffs, float_diffs, overrides, failures = compare_model(driver, hmmsearch, hmmemit_path, examples, model_rel,
                                                              target_files, work, gdb)
            model_worst = max(diffs) if diffs else 0.0
            model_worst_f32 = max(float_diffs) if float_diffs else 0.0
            print("%-34s targets %4d  compared %4d  max |diff| %.4f bits (float DP %.4f)  domain-sum scores %d  "
                  "failures %d" % (model_rel, count, len(diffs), model_worst, model_worst_f32, overrides,
                                   len(failures)))
            worst_f32 = max(worst_f32, model_worst_f32)
            total_targets += count
            total_compared += len(diffs)
            total_overrides += overrides
            worst = max(worst, model_worst)
            all_failures += failures
    for failure in all_failures:
        print("MISMATCH " + failure)
    print("models %d, targets %d, Forward scores compared %d (max |ours - hmmsearch| %.4f bits, float DP %.4f), "
          "domain-sum scores %d, mismatches %d" % (len(MODELS), total_targets, total_compared, worst, worst_f32,
                                                   total_overrides, len(all_failures)))
    return 1 if all_failures or total_compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
