#!/usr/bin/env python3
"""Compares cudp's reference MSV/SSV and Viterbi filters with hmmsearch 3.3.2's own filters.

The targets are those of hmmsearch_forward.py (example sequences of the model's alphabet plus hmmemit samples).
For each model, hmmsearch runs with the bias filter off (--nobias) under several F1/F2 thresholds, and the
"Passed MSV filter" and "Passed Vit filter" counts of its pipeline statistics must equal the counts of the driver,
which runs the same pipeline stages (MSV P-value against F1; Viterbi filter, run only when the MSV P-value is
above F2, against F2) with the scalar reference filters. The counts are exact: any rounding difference in a
filter score near a threshold shows up.

Usage: hmmsearch_filters.py DRIVER EXAMPLES_DIR [HMMSEARCH [HMMEMIT]]
Exit status 0 when every count agrees, 1 otherwise.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hmmsearch_forward import MODELS, build_targets, pipeline_counts, tool_arguments  # noqa: E402

# (label, F1, F2): hmmsearch's defaults; looser MSV thresholds (F2 = 1 lets every MSV survivor through); every
# target reaching the Viterbi filter (F1 = 1) under several F2. Each threshold samples the score distribution at
# another point, so that a systematic rounding difference cannot hide behind one lucky count.
SETTINGS = [("default", 0.02, 1e-3), ("F1=0.1,F2=1", 0.1, 1.0), ("F1=0.5,F2=1", 0.5, 1.0),
            ("F1=1,F2=1e-3", 1.0, 1e-3), ("F1=1,F2=0.02", 1.0, 0.02), ("F1=1,F2=0.2", 1.0, 0.2)]



def hmmsearch_counts(hmmsearch, model, targets, F1, F2, work):
    out = os.path.join(work, "search.out")
    subprocess.run([hmmsearch, "--nobias", "--F1", str(F1), "--F2", str(F2), "--F3", "1", "--cpu", "1",
                    "--noali", "-o", out, model, targets], check=True)
    counts = pipeline_counts(out)
    return counts["Passed MSV filter"], counts["Passed Vit filter"]


def driver_counts(driver, model, targets, F1, F2):
    out = subprocess.run([driver, model, targets, repr(F1), repr(F2)], check=True, capture_output=True,
                         text=True).stdout
    fields = out.split()
    return int(fields[2]), int(fields[3])


def main():
    tools = tool_arguments(sys.argv, __doc__)
    if isinstance(tools, int):
        return tools
    driver, examples, hmmsearch, hmmemit_path = tools
    failures, compared, agreed, total_targets = [], 0, 0, 0
    with tempfile.TemporaryDirectory() as work:
        for model_rel, target_files in MODELS:
            model = os.path.join(examples, model_rel)
            targets = os.path.join(work, "targets.fa")
            count = build_targets(hmmemit_path, model, examples, target_files, targets)
            total_targets += count
            line = []
            for label, F1, F2 in SETTINGS:
                theirs = hmmsearch_counts(hmmsearch, model, targets, F1, F2, work)
                ours = driver_counts(driver, model, targets, F1, F2)
                for stage, t, o in zip(("MSV", "Vit"), theirs, ours):
                    compared += 1
                    if t == o:
                        agreed += 1
                    else:
                        failures.append("%s %s %s: hmmsearch %d, ours %d" % (model_rel, label, stage, t, o))
                line.append("%s MSV %d/%d Vit %d/%d" % (label, ours[0], theirs[0], ours[1], theirs[1]))
            print("%-34s targets %4d  %s" % (model_rel, count, "  ".join(line)))
    for failure in failures:
        print("MISMATCH " + failure)
    print("models %d, targets %d, pass counts compared %d, equal %d, mismatches %d" %
          (len(MODELS), total_targets, compared, agreed, len(failures)))
    return 1 if failures or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
