#!/usr/bin/env python3
"""cudp-phylo's log-likelihoods against RAxML 8's at the parameters and branch lengths RAxML prints (docs/phylo.md).

usage: phylo_vs_raxml.py CUDP_PHYLO BUNDLED_DATA_DIR --raxml RAXMLHPC [--mrbayes-examples DIR]

RAxML 8 takes no fixed model parameters: `-f e` optimises the model and the branch lengths on a given tree. So
RAxML runs `-f e`, and ours evaluates RAxML's result tree (its lengths have 20 digits) with the model RAxML reports
(6 decimals) against the log-likelihood RAxML reports (6 decimals). The parameters are near RAxML's optimum, where
the log-likelihood is flat: their rounding moves it by far less than the bound, even at RAxML's default model
precision (0.1 log-likelihood units; 1e-5 gives the same agreement and takes ten times as long). Empirical frequencies are ours (+F), counted as RAxML counts them (ambiguity codes shared), except under
GTRGAMMAX, whose optimised ones are given. Bounds: 2e-5 (measured: 2.2e-6 or better), and 2e-7 relative for protein
(LG, WAG, JTT with their own frequencies: RAxML's LG and JTT tables differ from IQ-TREE's, which ours follow, in the
eighth digit: 4e-8 measured). +I is not compared: RAxML 8.2.12's `-f e` finds no invariant columns ("Found 0 invariant
alignment patterns") in data that have hundreds, and its GAMMAI log-likelihoods are then those of another model.
Exits non-zero if any case disagrees; prints a line per case.
"""
import argparse
import os
import re
import sys
import tempfile

from phylo_vs_references import balanced_tree, primates_files, read_nexus_matrix, run, write_alignment

HERE = os.path.dirname(os.path.abspath(__file__))
DNA_PAIRS = ["A <-> C", "A <-> G", "A <-> T", "C <-> G", "C <-> T"]


def raxml(binary, alignment, tree, args, work, name):
    """RAxML's optimum on the tree: (log-likelihood, its info file's text, the path of its result tree)."""
    run([binary, "-f", "e", "-s", alignment, "-t", tree, "-n", name, "-w", work, "-T", "2"] + args)
    info = open(os.path.join(work, f"RAxML_info.{name}")).read()
    lnl = float(re.search(r"Final GAMMA  likelihood: (\S+)", info).group(1))
    return lnl, info, os.path.join(work, f"RAxML_result.{name}")


def value(info, label):
    return re.search(r"^" + re.escape(label) + r": (\S+)", info, re.M).group(1)


def dna_model(info, base, ml_frequencies=False):
    """Our model string for RAxML's DNA parameters (its rates are relative to G <-> T)."""
    alpha = value(info, "alpha")
    gt = float(value(info, "rate G <-> T"))
    rates = [float(value(info, "rate " + pair)) / gt for pair in DNA_PAIRS]
    if base == "GTR":
        model = "GTR{" + ",".join(f"{r:.10g}" for r in rates) + "}"
    elif base == "HKY":
        model = f"HKY{{{rates[1]:.10g}}}"
    elif base == "K80":
        model = f"K80{{{rates[1]:.10g}}}"
    else:
        model = "JC"
    if ml_frequencies:
        model += "+F{" + ",".join(value(info, f"freq pi({s})") for s in "ACGT") + "}"
    elif base in ("GTR", "HKY"):
        model += "+F"
    return model + f"+G4{{{alpha}}}"


def ours(tool, alignment, tree, model):
    out = run([tool, "evaluate", "--alignment", alignment, "--tree", tree, "--model", model, "--backend", "host"])
    return float(re.search(r"^log-likelihood: (\S+)", out, re.M).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cudp_phylo")
    ap.add_argument("bundled")
    ap.add_argument("--raxml", required=True)
    ap.add_argument("--mrbayes-examples")
    args = ap.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        def generate(name, *options):
            prefix = os.path.join(work, name)
            run([sys.executable, os.path.join(HERE, "make_phylo_data.py"), prefix, *options])
            return prefix + (".phy" if "phylip" in options else ".fa"), prefix + ".nwk"

        # (name, alignment, tree, RAxML's arguments, our model from its info text, relative bound or None)
        cases = []
        sim = (os.path.join(args.bundled, "sim.fa"), os.path.join(args.bundled, "sim.nwk"))
        cases.append(("bundled sim", *sim, ["-m", "GTRGAMMA"], lambda i: dna_model(i, "GTR"), None))
        dna = generate("dna", "--seed", "1", "--taxa", "24", "--sites", "1500", "--ambiguity", "0.02", "--gaps",
                       "0.03")
        for label, raxml_args, base, ml in [("GTR+F+G4", ["-m", "GTRGAMMA"], "GTR", False),
                                            ("GTR+F (ML)+G4", ["-m", "GTRGAMMAX"], "GTR", True),
                                            ("HKY+F+G4", ["-m", "GTRGAMMA", "--HKY85"], "HKY", False),
                                            ("K80+G4", ["-m", "GTRGAMMA", "--K80"], "K80", False),
                                            ("JC+G4", ["-m", "GTRGAMMA", "--JC69"], "JC", False)]:
            cases.append((f"simulated DNA, 24 taxa, IUPAC codes, {label}", *dna, raxml_args,
                          lambda i, base=base, ml=ml: dna_model(i, base, ml), None))
        deep = generate("deep", "--seed", "2", "--taxa", "60", "--sites", "800", "--format", "phylip",
                        "--mean-length", "0.3", "--rooted")
        cases.append(("simulated DNA, 60 taxa, rooted tree", *deep, ["-m", "GTRGAMMA"],
                      lambda i: dna_model(i, "GTR"), None))
        if args.mrbayes_examples:
            _, fasta, _, tree = primates_files(args.mrbayes_examples, work)
            cases.append(("MrBayes primates.nex", fasta, tree, ["-m", "GTRGAMMA"], lambda i: dna_model(i, "GTR"),
                          None))
            # Real protein data (89 taxa) on a fixed balanced tree, with the models' own frequencies: C and W never
            # occur, and RAxML's +F keeps more for them than IQ-TREE's, which ours follows.
            names, rows = read_nexus_matrix(os.path.join(args.mrbayes_examples, "avian_ovomucoids.nex"))
            avian, avian_tree = os.path.join(work, "avian.fa"), os.path.join(work, "avian.nwk")
            write_alignment(names, rows, avian)
            with open(avian_tree, "w") as f:
                f.write(balanced_tree(names, 7) + "\n")
            for model, raxml_model in [("LG", "PROTGAMMALG"), ("WAG", "PROTGAMMAWAG"), ("JTT", "PROTGAMMAJTT")]:
                cases.append((f"MrBayes avian_ovomucoids.nex, {model}+G4", avian, avian_tree, ["-m", raxml_model],
                              lambda i, model=model: f"{model}+G4{{{value(i, 'alpha')}}}", 2e-7))

        for k, (name, alignment, tree, raxml_args, model_of, relative) in enumerate(cases):
            theirs, info, result_tree = raxml(args.raxml, alignment, tree, raxml_args, work, f"c{k}")
            model = model_of(info)
            mine = ours(args.cudp_phylo, alignment, result_tree, model)
            bound = relative * abs(theirs) if relative else 2e-5
            ok = abs(mine - theirs) <= bound
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name} (RAxML {' '.join(raxml_args)}), {model}: cudp {mine:.7f}, "
                  f"RAxML {theirs:.6f}, difference {mine - theirs:+.1e} (bound {bound:.0e})", flush=True)
    if failures:
        sys.exit(f"{failures} of {len(cases)} case(s) disagree with RAxML")
    print(f"all {len(cases)} cases agree with RAxML")


if __name__ == "__main__":
    main()
