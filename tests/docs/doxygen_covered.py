#!/usr/bin/env python3
"""Runs Doxygen on the covered headers with the reference's own configuration and fails on any warning: a public
declaration (outside `detail` namespaces) without a `///` comment, or a comment Doxygen cannot read (an unknown
command, a \\param naming no parameter).

The covered set is the list of headers given on the command line (tests/docs/CMakeLists.txt keeps it); a header
of the list that no longer exists is reported as such, so that a move or a rename shows up here instead of
silently shrinking the set. Each warning is printed as `path:line: text`, path relative to the repository.
Usage: doxygen_covered.py DOXYGEN DOXYFILE REPO_ROOT HEADER...   (headers relative to REPO_ROOT)
"""
import pathlib
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 5:
        print(__doc__)
        return 2
    doxygen, doxyfile, root = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]).resolve()
    headers = sys.argv[4:]
    missing = [h for h in headers if not (root / h).is_file()]
    for h in missing:
        print(f"{h}: a covered header that does not exist (moved or renamed? update the covered set in "
              "tests/docs/CMakeLists.txt and docs/README.md)")
    present = [str(root / h) for h in headers if (root / h).is_file()]
    with tempfile.TemporaryDirectory() as tmp:
        log = pathlib.Path(tmp) / "warnings.log"
        config = pathlib.Path(tmp) / "Doxyfile"
        quoted = " ".join(f'"{p}"' for p in present)
        config.write_text(f'@INCLUDE = "{doxyfile}"\n'
                          f"INPUT = {quoted}\n"
                          "USE_MDFILE_AS_MAINPAGE =\n"
                          f'OUTPUT_DIRECTORY = "{tmp}"\n'
                          "GENERATE_HTML = NO\n"
                          "GENERATE_XML = YES\n"
                          "SOURCE_BROWSER = NO\n"
                          f'WARN_LOGFILE = "{log}"\n', encoding="utf-8")
        run = subprocess.run([doxygen, str(config)], cwd=tmp, capture_output=True, text=True)
        warnings = log.read_text(encoding="utf-8", errors="replace").splitlines() if log.exists() else []
    warnings = [w.replace(str(root) + "/", "") for w in warnings if w.strip()]
    for w in warnings:
        print(w)
    if run.returncode != 0:
        print(f"doxygen exited with status {run.returncode}:\n{run.stdout}{run.stderr}")
    if warnings or missing or run.returncode != 0:
        print(f"\ndocs_reference: {len(warnings)} warning(s) in the {len(present)} covered headers"
              f"{f', {len(missing)} covered header(s) missing' if missing else ''}: document each declaration "
              "named above with a /// comment (see docs/README.md, 'API reference')")
        return 1
    print(f"docs_reference: the {len(present)} covered headers are documented throughout (no Doxygen warning)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
