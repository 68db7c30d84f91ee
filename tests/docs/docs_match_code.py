#!/usr/bin/env python3
"""Checks figures and claims of the documentation against the code they describe, where prose has gone stale
before: the tier thresholds and warp group sizes of engine/tuning/, the nvcc flags device code needs, the oracle
cases of cudp-hmmsearch and cudp-gen-db's --plant rule. Usage: docs_match_code.py REPO_ROOT
"""
import pathlib
import re
import sys

NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16}


def main():
    root = pathlib.Path(sys.argv[1])
    read = lambda rel: (root / rel).read_text(encoding="utf-8")
    # Prose is wrapped, so phrases are matched with any whitespace between their words.
    flat = lambda rel: re.sub(r"\s+", " ", read(rel))
    errors = []

    sm90 = read("include/cudp/engine/tuning/sm90.cuh")
    t90, w90 = map(int, re.search(r"thresholds\{(\d+), (\d+)\}", sm90).groups())
    defaults = read("include/cudp/engine/dispatch_options.hpp")
    t0 = int(re.search(r"thread_max_length = (\d+)", defaults).group(1))
    w0 = int(re.search(r"warp_max_length = (\d+)", defaults).group(1))
    s16 = sm90[sm90.index("struct WavefrontTuning<900, lanes::s16x2>"):]
    s16 = s16[:s16.index("padded_gcups")]
    groups = sorted({int(g) for g in re.findall(r"WarpTier<(\d+),", s16)})

    arch = flat("docs/architecture.md")
    m = re.search(r"\(([\d, and]+) in the sm_90 `s16x2`/`h16x2` menu", arch)
    shown = sorted(int(g) for g in re.findall(r"\d+", m.group(1))) if m else None
    if shown != groups:
        errors.append(f"architecture.md: warp group sizes of the sm_90 s16x2 menu shown as {shown}, code has {groups}")
    if f"`{{{t90}, {w90}}}`" not in arch:
        errors.append(f"architecture.md: sm_90 thresholds {{{t90}, {w90}}} not stated")
    if f"`{{{t0}, {w0}}}`" not in arch or f"targets up to {t0} on the thread tier and up to {w0} on the warp tier" not in arch:
        errors.append(f"architecture.md: the untuned defaults {{{t0}, {w0}}} not stated")
    if "the bulk: short and medium targets" in arch and t90 == 0:
        errors.append("architecture.md: the thread tier is called the bulk, but sm_90 gives it no targets")

    sw = flat("docs/swsearch.md")
    if t90 == 0 and not re.search(rf"on sm_90: targets up to {w90} residues on the warp tier, longer ones on the block "
                                  r"tier, none on the thread tier", sw):
        errors.append(f"swsearch.md: the cuda backend does not say how sm_90 splits targets (thread 0, warp {w90})")
    if f"up to {t0} on the thread tier" not in sw:
        errors.append(f"swsearch.md: the untuned thread-tier bound {t0} is not stated")

    flags = "--expt-relaxed-constexpr --extended-lambda"
    for page in ["README.md"] + sorted(str(p.relative_to(root)) for p in (root / "docs").glob("*.md")):
        text = flat(page)
        if "nvcc" in text and flags not in text:
            errors.append(f"{page}: mentions nvcc without the flags device code needs ({flags})")

    cmake = read("tests/apps/CMakeLists.txt")
    cases = re.search(r"foreach\(case ([^)]*)\)", cmake).group(1).split()
    hmm = flat("docs/hmmsearch.md")
    m = re.search(r"same data, (\w+) cases:", hmm)
    if not m or NUMBER_WORDS.get(m.group(1)) != len(cases):
        errors.append(f"hmmsearch.md: the oracle list gives '{m.group(1) if m else None}' cases, "
                      f"{len(cases)} are registered ({' '.join(cases)})")
    if "`protein-long`" not in hmm:
        errors.append("hmmsearch.md: the oracle case protein-long is not described")
    if re.search(r"standard input", hmm) and not re.search(r"gzip is recognised in named files only", hmm):
        errors.append("hmmsearch.md: does not say that standard input is not read as gzip")

    bench = flat("docs/benchmarks.md")
    if not re.search(r"`--plant K`[^.]*\.[^.]*It needs `--queries-out`", bench):
        errors.append("benchmarks.md: does not say that --plant needs --queries-out")

    for e in errors:
        print("FAIL:", e)
    if errors:
        return 1
    print("the documentation's tuning figures, nvcc flags, oracle cases and cudp-gen-db rules match the code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
