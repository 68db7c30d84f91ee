#!/usr/bin/env python3
"""The long models of the long-model benchmarks, built the way the protein-long oracle case builds its model:
hmmemit alignments of hmmer-examples models joined column by column, built with hmmbuild on their reference columns.

Usage: make_long_models.py EXAMPLES_DIR OUT_DIR
Writes long2000.hmm (1888 nodes), long2700.hmm (2691) and long3000.hmm (3005) into OUT_DIR. Needs hmmemit and
hmmbuild on PATH. Seeded, so every run builds the same models.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "apps"))
from hmmsearch_vs_hmmsearch import joined_model  # noqa: E402

LONG2700 = ["testsuite/SMC_N.hmm.gz", "testsuite/Patched.hmm.gz", "testsuite/LuxC.hmm.gz", "tutorial/Pkinase.hmm",
            "tutorial/fn3.hmm"]
MODELS = {
    "long2000": ["testsuite/SMC_N.hmm.gz", "testsuite/LuxC.hmm.gz", "tutorial/Pkinase.hmm", "tutorial/fn3.hmm"],
    "long2700": LONG2700,
    "long3000": LONG2700 + ["testsuite/2OG-FeII_Oxy_3.hmm.gz", "testsuite/Caudal_act.hmm.gz",
                            "testsuite/RRM_1.hmm.gz"],
}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    examples, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for name, parts in MODELS.items():
        with tempfile.TemporaryDirectory() as work:
            hmm = joined_model(parts, examples, shutil.which("hmmemit"), shutil.which("hmmbuild"), work)
            with open(hmm) as f:
                text = f.read().replace("NAME  joined", "NAME  " + name, 1)
            with open(os.path.join(out, name + ".hmm"), "w") as f:
                f.write(text)
        print(name, [line.split()[1] for line in text.splitlines() if line.startswith("LENG")][0], "nodes")


if __name__ == "__main__":
    main()
