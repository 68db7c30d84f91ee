#!/usr/bin/env python3
"""cudp-phylo's log-likelihoods against IQ-TREE 2 and PhyML with every parameter fixed (docs/phylo.md).

usage: phylo_vs_references.py CUDP_PHYLO [--iqtree IQTREE2] [--phyml PHYML] [--mrbayes-examples DIR]

Data: alignments simulated along random trees with make_phylo_data.py (gaps and IUPAC codes included, DNA and
protein, FASTA and PHYLIP), and MrBayes' primates.nex with a fixed tree. For each (data, model) the three programs
evaluate the same tree with the same parameters:
- IQ-TREE (-te TREE -blfix, every parameter in braces) prints 4 decimals: ours must round to within 1e-4 of it;
- PhyML (-o n) prints the log-likelihood to 20 digits: ours must agree to 1e-9 relative (double precision).
Single precision is checked against our double at 1e-5 relative. Exits non-zero on the first disagreement, naming
the case; prints a line per case otherwise.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PRIMATES_TREE = ("(((((Homo_sapiens:0.05,Pan:0.06):0.02,Gorilla:0.07):0.03,Pongo:0.1):0.04,Hylobates:0.12):0.05,"
                 "((Macaca_fuscata:0.02,M_mulatta:0.03):0.01,(M_fascicularis:0.04,M_sylvanus:0.06):0.02):0.08,"
                 "(Saimiri_sciureus:0.2,(Tarsius_syrichta:0.3,Lemur_catta:0.25):0.05):0.06);")


def run(cmd, cwd=None):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
                                                                               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
    if p.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return p.stdout


def cudp(tool, alignment, tree, model, precision="double"):
    out = run([tool, "evaluate", "--alignment", alignment, "--tree", tree, "--model", model, "--backend", "host",
               "--precision", precision])
    return float(re.search(r"^log-likelihood: (\S+)", out, re.M).group(1))


def iqtree(binary, alignment, tree, model, work):
    prefix = os.path.join(work, "iq")
    run([binary, "-s", alignment, "-te", tree, "-m", model, "-blfix", "-redo", "-nt", "1", "-pre", prefix, "-quiet"])
    text = open(prefix + ".iqtree").read()
    return float(re.search(r"Log-likelihood of the tree: (\S+)", text).group(1))


def phyml_full(binary, phylip, tree, args, work):
    local = os.path.join(work, "aln.phy")
    with open(phylip) as src, open(local, "w") as dst:
        dst.write(src.read())
    out = run([binary, "-i", local, "-u", tree, "-o", "n", "-b", "0", "--no_memory_check"] + args)
    return float(re.search(r"Log likelihood of the current tree: (-?[0-9.]+[0-9])", out).group(1))


def simulate(work, name, seed, taxa, sites, states=4, fmt="fasta", **extra):
    prefix = os.path.join(work, name)
    cmd = [sys.executable, os.path.join(HERE, "make_phylo_data.py"), prefix, "--seed", str(seed), "--taxa", str(taxa),
           "--sites", str(sites), "--states", str(states), "--format", fmt]
    for k, v in extra.items():
        cmd += ["--" + k.replace("_", "-")] + ([] if v is True else [str(v)])
    out = run(cmd)
    rates = re.search(r"^rates (\S+)", out, re.M).group(1)
    freqs = re.search(r"^freqs (\S+)", out, re.M).group(1)
    return prefix + (".fa" if fmt == "fasta" else ".phy"), prefix + ".nwk", rates, freqs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cudp_phylo")
    ap.add_argument("--iqtree")
    ap.add_argument("--phyml")
    ap.add_argument("--mrbayes-examples")
    args = ap.parse_args()
    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as work:
        cases = []  # (name, alignment, tree, our model, iqtree model or None, phyml args or None)
        aln, tree, rates, freqs = simulate(work, "dna1", 1, 24, 1500, ambiguity=0.02, gaps=0.03)
        f = "{" + freqs + "}"
        for model in [f"JC", f"JC+G4{{0.5}}", f"F81+F{f}+I{{0.2}}", f"K80{{3.1}}+G4{{1.3}}+I{{0.1}}",
                      f"HKY{{2.4}}+F{f}+G4{{0.8}}", f"TN93{{2.2,4.5}}+F{f}+G6{{0.4}}",
                      f"SYM{{{rates}}}+G4{{0.9}}", f"GTR{{{rates}}}+F{f}+G4{{0.7}}+I{{0.15}}",
                      f"GTR{{{rates}}}+F{f}+G8{{0.2}}"]:
            cases.append(("simulated DNA, 24 taxa", aln, tree, model, model, None))
        # Frequencies counted from data with 5% ambiguity codes: IQ-TREE shares an ambiguous count among its states.
        aln, tree, _, _ = simulate(work, "dna3", 4, 24, 1500, ambiguity=0.05, gaps=0.03)
        cases.append(("simulated DNA, 5% ambiguity codes", aln, tree, "HKY{2}+F+G4{0.7}", "HKY{2}+F+G4{0.7}", None))
        aln, tree, rates, freqs = simulate(work, "dna2", 2, 60, 800, fmt="phylip", mean_length=0.3, rooted=True)
        f = "{" + freqs + "}"
        ff = freqs
        cases.append(("simulated DNA, 60 taxa, rooted", aln, tree, f"GTR{{{rates}}}+F{f}+G4{{0.6}}+I{{0.1}}",
                      f"GTR{{{rates}}}+F{f}+G4{{0.6}}+I{{0.1}}", None))
        cases.append(("simulated DNA, 60 taxa, rooted", aln, tree, f"HKY{{3.0}}+F{f}+G4{{0.6}}+I{{0.1}}",
                      f"HKY{{3.0}}+F{f}+G4{{0.6}}+I{{0.1}}",
                      ["-d", "nt", "-m", "HKY85", "-t", "3.0", "-f", ff, "-c", "4", "-a", "0.6", "-v", "0.1"]))
        cases.append(("simulated DNA, 60 taxa, rooted", aln, tree, "K80{2.5}+G4{1.1}", "K80{2.5}+G4{1.1}",
                      ["-d", "nt", "-m", "K80", "-t", "2.5", "-c", "4", "-a", "1.1", "-v", "0"]))
        cases.append(("simulated DNA, 60 taxa, rooted", aln, tree, "JC", "JC",
                      ["-d", "nt", "-m", "JC69", "-c", "1", "-v", "0"]))
        aln, tree, _, _ = simulate(work, "prot", 3, 16, 400, states=20, ambiguity=0.02, gaps=0.05)
        cases.append(("simulated protein, 16 taxa", aln, tree, "Poisson+G4{0.8}+I{0.05}", "Poisson+G4{0.8}+I{0.05}",
                      None))
        if args.mrbayes_examples:
            nexus = os.path.join(args.mrbayes_examples, "primates.nex")
            primates_tree = os.path.join(work, "primates.nwk")
            with open(primates_tree, "w") as t:
                t.write(PRIMATES_TREE + "\n")
            # IQ-TREE 2.0.7 cannot read this file's FORMAT line; it reads the FASTA we write from our own parse.
            fasta = os.path.join(work, "primates.fa")
            names, rows, in_matrix = [], [], False
            for line in open(nexus):
                if line.strip().lower() == "matrix":
                    in_matrix = True
                elif in_matrix and line.strip() == ";":
                    in_matrix = False
                elif in_matrix and line.split():
                    names.append(line.split()[0])
                    rows.append("".join(line.split()[1:]))
            with open(fasta, "w") as out:
                for n, r in zip(names, rows):
                    out.write(f">{n}\n{r}\n")
            phylip = os.path.join(work, "primates.phy")
            with open(phylip, "w") as out:
                out.write(f"{len(names)} {len(rows[0])}\n")
                for n, r in zip(names, rows):
                    out.write(f"{n}  {r}\n")
            model = "HKY{4.0}+F{0.1,0.2,0.3,0.4}+G4{0.5}+I{0.2}"
            cases.append(("MrBayes primates.nex", nexus, primates_tree, model, None,
                          ["-d", "nt", "-m", "HKY85", "-t", "4.0", "-f", "0.1,0.2,0.3,0.4", "-c", "4", "-a", "0.5",
                           "-v", "0.2"]))
            cases.append(("MrBayes primates.nex (as FASTA for IQ-TREE)", fasta, primates_tree,
                          "GTR{1,2,3,4,5}+F{0.1,0.2,0.3,0.4}+G4{0.5}", "GTR{1,2,3,4,5}+F{0.1,0.2,0.3,0.4}+G4{0.5}",
                          None))
            phylip_of = {nexus: phylip}
        else:
            phylip_of = {}
        for name, aln, tree, model, iq_model, phyml_args in cases:
            ours = cudp(args.cudp_phylo, aln, tree, model)
            single = cudp(args.cudp_phylo, aln, tree, model, "single")
            line = f"{name}, {model}: cudp {ours:.10f}"
            ok = abs(single - ours) <= 1e-5 * abs(ours)
            line += f", single {single:.6f}"
            if iq_model and args.iqtree:
                ref = iqtree(args.iqtree, aln, tree, iq_model, work)
                ok_iq = abs(ours - ref) <= 1e-4
                ok = ok and ok_iq
                line += f", IQ-TREE {ref:.4f}" + ("" if ok_iq else " DIFFERENT")
                checked += 1
            if phyml_args and args.phyml:
                phylip = phylip_of.get(aln, aln)
                if not phylip.endswith(".phy"):
                    sys.exit(f"{name}: PhyML needs PHYLIP")
                ref = phyml_full(args.phyml, phylip, tree, phyml_args, work)
                ok_phyml = abs(ours - ref) <= 1e-9 * abs(ref)
                ok = ok and ok_phyml
                relative = abs(ours - ref) / abs(ref)
                line += f", PhyML {ref:.10f} (relative {relative:.1e})" + ("" if ok_phyml else " DIFFERENT")
                checked += 1
            print(("ok   " if ok else "FAIL ") + line, flush=True)
            failures += not ok
    if checked == 0:
        sys.exit("no reference tool was given: nothing was compared")
    if failures:
        sys.exit(f"{failures} case(s) disagree")
    print(f"all {len(cases)} cases agree ({checked} comparisons)")


if __name__ == "__main__":
    main()
