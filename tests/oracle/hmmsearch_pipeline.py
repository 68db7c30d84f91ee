#!/usr/bin/env python3
"""Compares cudp's hmmsearch pipeline (Plan7Pipeline: filters, bias filter, Forward, domain definition, null2)
with hmmsearch 3.3.2 itself.

Targets per model: the hmmer-examples sequences of the model's alphabet, hmmemit samples (full-length core,
multihit local, short local, long multihit, local with 5% degenerate residue codes; fixed seeds), and background that exercises the filters: i.i.d. random sequences,
shuffled copies of the examples, and shuffled model samples (the model's own composition without its order, the
case the biased-composition filter exists for). Each model runs under hmmsearch's defaults and, for a subset,
under --nobias, --nonull2 and --max.

Checked against hmmsearch's statistics block, --tblout and --domtblout:
  - the targets passing each stage (MSV, bias, Viterbi, Forward): exact;
  - the set of reported sequences (E <= 10 with Z = number of targets): exact;
  - per reported sequence: score and bias within tblout's rounding (0.05 bits, plus a little float slack), the
    E-value equal at the printed two significant digits (within 1% of the printed interval), and the domain
    numbers exp (one decimal), reg, clu, ov, env, dom, rep, inc: exact;
  - per reported domain (domZ = number of reported sequences): envelope, alignment and model coordinates exact,
    score and bias within 0.05 bits, c-Evalue/i-Evalue at printed precision, acc within 0.01.
The numbers are hmmsearch's; nothing here is taken from our own output.

Usage: hmmsearch_pipeline.py DRIVER EXAMPLES_DIR [HMMSEARCH [HMMEMIT]] [--quick]
Exit status 0 when everything agrees, 1 otherwise.
"""
import math
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hmmsearch_forward import (DNA_TARGETS, PROTEIN_TARGETS, fasta_records, hmmemit, read_text,  # noqa: E402
                               pipeline_counts, table_rows, tool_arguments, write_unique_fasta)

SCORE_TOLERANCE = 0.05 + 2e-3
ACC_TOLERANCE = 0.01 + 1e-3

AMINO = "ACDEFGHIKLMNPQRSTVWY"
AMINO_FREQ = [0.0787945, 0.0151600, 0.0535222, 0.0668298, 0.0397062, 0.0695071, 0.0229198, 0.0590092, 0.0594422,
              0.0963728, 0.0237718, 0.0414386, 0.0482904, 0.0395639, 0.0540978, 0.0683364, 0.0540687, 0.0673417,
              0.0114135, 0.0304133]

# (model, target files, option sets). Every model runs with the defaults; the option variants run where a model
# has enough hits to make them informative.
DEFAULT = []
MODELS = [
    ("tutorial/globins4.hmm", PROTEIN_TARGETS, [DEFAULT, ["--nobias"], ["--nonull2"], ["--max"]]),
    ("tutorial/fn3.hmm", PROTEIN_TARGETS, [DEFAULT, ["--max"]]),
    ("tutorial/Pkinase.hmm", PROTEIN_TARGETS, [DEFAULT, ["--nonull2"]]),
    ("tutorial/MADE1.hmm", DNA_TARGETS + ["tutorial/dna_target.fa"], [DEFAULT, ["--max"]]),
    ("testsuite/20aa.hmm.gz", PROTEIN_TARGETS, [DEFAULT]),
    ("testsuite/2OG-FeII_Oxy_3.hmm.gz", PROTEIN_TARGETS, [DEFAULT]),
    ("testsuite/Caudal_act.hmm.gz", PROTEIN_TARGETS, [DEFAULT, ["--nobias"]]),
    ("testsuite/LuxC.hmm.gz", PROTEIN_TARGETS, [DEFAULT]),
    ("testsuite/Patched.hmm.gz", PROTEIN_TARGETS, [DEFAULT]),
    ("testsuite/RRM_1.hmm.gz", PROTEIN_TARGETS, [DEFAULT, ["--max"]]),
    ("testsuite/SMC_N.hmm.gz", PROTEIN_TARGETS, [DEFAULT]),
    ("testsuite/M1.hmm", PROTEIN_TARGETS, [DEFAULT]),
    ("testsuite/XYPPX.hmm", PROTEIN_TARGETS, [DEFAULT, ["--max"]]),
    ("testsuite/PSE.hmm", DNA_TARGETS, [DEFAULT]),
    ("testsuite/ecori.hmm", DNA_TARGETS, [DEFAULT]),
    ("testsuite/3box.hmm.gz", DNA_TARGETS, [DEFAULT]),
    ("testsuite/2OG-FeII_Oxy_3-nt.hmm.gz", DNA_TARGETS, [DEFAULT]),
]
QUICK_MODELS = {"tutorial/globins4.hmm", "tutorial/fn3.hmm", "testsuite/RRM_1.hmm.gz", "tutorial/MADE1.hmm"}

STAGES = ["Target sequences", "Passed MSV filter", "Passed bias filter", "Passed Vit filter", "Passed Fwd filter"]


def shuffled(rng, seq):
    letters = list(seq)
    rng.shuffle(letters)
    return "".join(letters)


def build_targets(hmmemit_path, model, examples, target_files, path, dna):
    rng = random.Random(20261121)
    records = []
    for target in target_files:
        records += list(fasta_records(read_text(os.path.join(examples, target))))
    # Keep the examples' sizes moderate: long genomic DNA is cut to 4 kb pieces (the domain definition of a 40 kb
    # target under --max is slow and adds nothing the pieces do not test).
    pieces = []
    for name, seq in records:
        if len(seq) <= 6000:
            pieces.append((name, seq))
        else:
            pieces += [("%s/%d" % (name, i // 4000 + 1), seq[i:i + 4000]) for i in range(0, min(len(seq), 24000), 4000)]
    records = pieces
    records += [("core-" + n, s) for n, s in hmmemit(hmmemit_path, model, ["-N", "6", "--seed", "11"])]
    records += [("local-" + n, s) for n, s in hmmemit(hmmemit_path, model, ["-p", "-N", "8", "--seed", "17"])]
    records += [("short-" + n, s) for n, s in hmmemit(hmmemit_path, model, ["-p", "-L", "40", "-N", "4", "--seed", "5"])]
    multi = hmmemit(hmmemit_path, model, ["-p", "-L", "600", "-N", "4", "--seed", "23"])
    records += [("multi-" + n, s) for n, s in multi]
    # Degenerate residue codes (X, B, Z, U, O, J; N, R, Y, ... in DNA) in 5% of the positions of local samples:
    # their expected emission scores, the bias filter's and null2's averaged odds.
    degenerate = "RYMKSWHBVDN" if dna else "XBZUOJ"
    for name, seq in hmmemit(hmmemit_path, model, ["-p", "-N", "4", "--seed", "29"]):
        records.append(("degen-" + name, "".join(rng.choice(degenerate) if rng.random() < 0.05 else c for c in seq)))
    # Background: shuffled examples and model samples (same composition, no homology), i.i.d. random sequences.
    background = []
    for name, seq in records:
        if len(seq) <= 3000:
            background.append(("shuf-" + name, shuffled(rng, seq)))
    alphabet = "ACGT" if dna else AMINO
    weights = [1.0] * 4 if dna else AMINO_FREQ
    for n in range(40):
        length = rng.choice([50, 120, 300, 800])
        background.append(("iid-%d" % n, "".join(rng.choices(alphabet, weights=weights, k=length))))
    # Low-complexity segments inside random sequence: biased composition that can pass MSV by itself.
    for n in range(6):
        repeat = "".join(rng.choices(alphabet, k=rng.choice([1, 2, 3])))
        core = (repeat * 200)[: rng.choice([40, 80, 160])]
        flank = "".join(rng.choices(alphabet, weights=weights, k=100))
        background.append(("lowc-%d" % n, flank[:50] + core + flank[50:]))
    records += background
    return write_unique_fasta(records, path)


def printed_evalue_matches(ours, printed_text):
    """True when our E-value agrees with hmmsearch's %.2g print: equal when printed the same way, or within 1% of
    the interval that the printed value stands for."""
    if ("%.2g" % ours) == ("%.2g" % float(printed_text)):
        return True
    printed = float(printed_text)
    if printed == 0.0:
        return ours < 1e-300
    exponent = math.floor(math.log10(abs(printed)))
    half_step = 0.05 * 10 ** exponent if abs(printed) >= 1 or "e" in printed_text else 0.005 * 10 ** exponent
    lo, hi = (printed - half_step) * 0.99, (printed + half_step) * 1.01
    return lo <= ours <= hi


def run_driver(driver, model, targets, options):
    out = subprocess.run([driver, model, targets] + options, check=True, capture_output=True, text=True).stdout
    hits, counts = {}, None
    for line in out.splitlines():
        f = line.split("\t")
        if f[0] == "hit":
            hits[f[2]] = {"L": int(f[3]), "bits": float(f[4]), "pre": float(f[5]), "lnP": float(f[6]),
                          "exp": float(f[7]), "reg": int(f[8]), "clu": int(f[9]), "ov": int(f[10]),
                          "env": int(f[11]), "dom": int(f[12]), "domains": []}
        elif f[0] == "domain":
            hits[f[2]]["domains"].append({"env": (int(f[4]), int(f[5])), "ali": (int(f[6]), int(f[7])),
                                           "hmm": (int(f[8]), int(f[9])), "bits": float(f[10]),
                                           "bias": float(f[11]), "lnP": float(f[12]), "acc": float(f[13])})
        elif f[0] == "counts":
            counts = [int(x) for x in f[2:3] + f[4:8]]
    return hits, counts


def hmmsearch_run(hmmsearch, model, targets, options, work):
    out, tbl, dom = (os.path.join(work, n) for n in ("o.txt", "t.tbl", "d.tbl"))
    subprocess.run([hmmsearch, "--cpu", "1", "--noali", "-o", out, "--tblout", tbl, "--domtblout", dom] + options +
                   [model, targets], check=True)
    counts = pipeline_counts(out)
    seqs = {}
    for row in table_rows(tbl):
        seqs[row[0]] = {"E": row[4], "score": float(row[5]), "bias": float(row[6]), "exp": float(row[10]),
                        "reg": int(row[11]), "clu": int(row[12]), "ov": int(row[13]), "env": int(row[14]),
                        "dom": int(row[15]), "rep": int(row[16]), "inc": int(row[17])}
    domains = {}
    for row in table_rows(dom):
        domains.setdefault(row[0], []).append({
            "c": row[11], "i": row[12], "score": float(row[13]), "bias": float(row[14]),
            "hmm": (int(row[15]), int(row[16])), "ali": (int(row[17]), int(row[18])),
            "env": (int(row[19]), int(row[20])), "acc": float(row[21])})
    return [counts[s] for s in STAGES], seqs, domains


def compare(label, ours_hits, ours_counts, ref_counts, ref_seqs, ref_domains, stats):
    failures = []
    if ours_counts != ref_counts:
        failures.append("%s: stage counts %s, hmmsearch %s" % (label, ours_counts, ref_counts))
    Z = ref_counts[0]
    reported = {n: h for n, h in ours_hits.items() if math.exp(h["lnP"]) * Z <= 10.0}
    missing = sorted(set(ref_seqs) - set(reported))
    extra = sorted(set(reported) - set(ref_seqs))
    for name in missing:
        failures.append("%s %s: reported by hmmsearch (E %s), not by us%s" % (
            label, name, ref_seqs[name]["E"],
            "" if name not in ours_hits else " (our E %.3g)" % (math.exp(ours_hits[name]["lnP"]) * Z)))
    for name in extra:
        failures.append("%s %s: reported by us (E %.3g), not by hmmsearch" % (label, name,
                                                                             math.exp(reported[name]["lnP"]) * Z))
    domZ = len(reported)
    for name in sorted(set(ref_seqs) & set(reported)):
        ref, ours = ref_seqs[name], reported[name]
        stats["sequences"] += 1
        E = math.exp(ours["lnP"]) * Z
        diff = abs(ours["bits"] - ref["score"])
        stats["max_score_diff"] = max(stats["max_score_diff"], diff)
        stats["exact_score_prints"] += ("%.1f" % ours["bits"]) == ("%.1f" % ref["score"])
        if diff > SCORE_TOLERANCE:
            failures.append("%s %s: score %.4f, hmmsearch %.1f" % (label, name, ours["bits"], ref["score"]))
        if abs((ours["pre"] - ours["bits"]) - ref["bias"]) > SCORE_TOLERANCE:
            failures.append("%s %s: bias %.4f, hmmsearch %.1f" % (label, name, ours["pre"] - ours["bits"], ref["bias"]))
        if not printed_evalue_matches(E, ref["E"]):
            failures.append("%s %s: E-value %.4g, hmmsearch %s" % (label, name, E, ref["E"]))
        doms = ours["domains"]
        rep = [d for d in doms if math.exp(d["lnP"]) * domZ <= 10.0]
        included_seq = E <= 0.01
        inc = [d for d in rep if included_seq and math.exp(d["lnP"]) * domZ <= 0.01]
        ours_numbers = ("%.1f" % ours["exp"], ours["reg"], ours["clu"], ours["ov"], ours["env"], ours["dom"],
                        len(rep), len(inc))
        ref_numbers = ("%.1f" % ref["exp"], ref["reg"], ref["clu"], ref["ov"], ref["env"], ref["dom"], ref["rep"],
                       ref["inc"])
        if ours_numbers != ref_numbers:
            failures.append("%s %s: exp/reg/clu/ov/env/dom/rep/inc %s, hmmsearch %s" % (label, name, ours_numbers,
                                                                                        ref_numbers))
        ref_doms = ref_domains.get(name, [])
        if len(ref_doms) != len(rep):
            failures.append("%s %s: %d reported domains, hmmsearch %d" % (label, name, len(rep), len(ref_doms)))
            continue
        for index, (d, r) in enumerate(zip(rep, ref_doms)):
            stats["domains"] += 1
            where = "%s %s domain %d" % (label, name, index + 1)
            for key in ("env", "ali", "hmm"):
                if d[key] != r[key]:
                    failures.append("%s: %s %s, hmmsearch %s" % (where, key, d[key], r[key]))
            ddiff = abs(d["bits"] - r["score"])
            stats["max_domain_diff"] = max(stats["max_domain_diff"], ddiff)
            if ddiff > SCORE_TOLERANCE:
                failures.append("%s: score %.4f, hmmsearch %.1f" % (where, d["bits"], r["score"]))
            if abs(d["bias"] - r["bias"]) > SCORE_TOLERANCE:
                failures.append("%s: bias %.4f, hmmsearch %.1f" % (where, d["bias"], r["bias"]))
            if abs(d["acc"] - r["acc"]) > ACC_TOLERANCE:
                failures.append("%s: acc %.3f, hmmsearch %.2f" % (where, d["acc"], r["acc"]))
            if not printed_evalue_matches(math.exp(d["lnP"]) * domZ, r["c"]):
                failures.append("%s: c-Evalue %.3g, hmmsearch %s" % (where, math.exp(d["lnP"]) * domZ, r["c"]))
            if not printed_evalue_matches(math.exp(d["lnP"]) * Z, r["i"]):
                failures.append("%s: i-Evalue %.3g, hmmsearch %s" % (where, math.exp(d["lnP"]) * Z, r["i"]))
    return failures


def main():
    args = [a for a in sys.argv if a != "--quick"]
    quick = len(args) != len(sys.argv)
    tools = tool_arguments(args, __doc__)
    if isinstance(tools, int):
        return tools
    driver, examples, hmmsearch, hmmemit_path = tools
    stats = {"sequences": 0, "domains": 0, "max_score_diff": 0.0, "max_domain_diff": 0.0, "exact_score_prints": 0}
    all_failures, runs, total_targets = [], 0, 0
    with tempfile.TemporaryDirectory() as work:
        for model_rel, target_files, option_sets in MODELS:
            if quick and model_rel not in QUICK_MODELS:
                continue
            model = os.path.join(examples, model_rel)
            targets = os.path.join(work, "targets.fa")
            dna = target_files is not PROTEIN_TARGETS
            count = build_targets(hmmemit_path, model, examples, target_files, targets, dna)
            total_targets += count
            for options in option_sets:
                label = "%s %s" % (model_rel, " ".join(options) or "(defaults)")
                ref_counts, ref_seqs, ref_domains = hmmsearch_run(hmmsearch, model, targets, options, work)
                hits, counts = run_driver(driver, model, targets, options)
                failures = compare(label, hits, counts, ref_counts, ref_seqs, ref_domains, stats)
                runs += 1
                print("%-50s targets %4d  stages %-26s reported %3d  failures %d" % (
                    label, count, "/".join(str(c) for c in ref_counts[1:]), len(ref_seqs), len(failures)))
                all_failures += failures
    for failure in all_failures:
        print("MISMATCH " + failure)
    print("runs %d, targets %d, reported sequences compared %d (score printed identically %d, max |diff| %.4f bits), "
          "domains compared %d (max |diff| %.4f bits), mismatches %d" % (
              runs, total_targets, stats["sequences"], stats["exact_score_prints"], stats["max_score_diff"],
              stats["domains"], stats["max_domain_diff"], len(all_failures)))
    return 1 if all_failures or stats["sequences"] == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
