#!/usr/bin/env python3
"""Checks that the code shown in the markdown documentation is the code that the tests compile and run.

GitHub markdown has no include directive, so the documentation keeps its code blocks, and this check ties them to
their sources:

* A source file (a test under tests/, an example under examples/, or tests/package/CMakeLists.txt) marks a region with a line
  `// [snippet:NAME]` (or `# [snippet:NAME]`) and ends it with `// [/snippet]`. The region, less its common
  indentation, is the snippet NAME.
* In a .md file, a line `<!-- snippet: NAME -->` is followed by a fenced code block that must hold exactly that
  snippet.
* A line `<!-- snippet-of: PATH -->` is followed by a fenced code block that is one part of the file PATH (relative
  to the repository root). The parts of PATH, in document order, must together be the file's code: the lines that
  are neither blank nor only a comment, in the same order.

Every snippet defined in a source must be shown somewhere, every marker must name a snippet that exists, and every
difference is printed as a unified diff. Usage: snippets_match.py REPO_ROOT
"""
import difflib
import pathlib
import re
import sys

SOURCE_SUFFIXES = {".cpp", ".cu", ".hpp", ".cuh", ".cmake", ".txt"}
BEGIN = re.compile(r"^\s*(?://|#)\s*\[snippet:([A-Za-z0-9_.-]+)\]\s*$")
END = re.compile(r"^\s*(?://|#)\s*\[/snippet\]\s*$")
MD_SNIPPET = re.compile(r"^<!--\s*snippet:\s*([A-Za-z0-9_.-]+)\s*-->\s*$")
MD_PART = re.compile(r"^<!--\s*snippet-of:\s*(\S+)\s*-->\s*$")
FENCE = re.compile(r"^(```+|~~~+)")


def dedent(lines):
    indents = [len(line) - len(line.lstrip(" ")) for line in lines if line.strip()]
    cut = min(indents) if indents else 0
    return [line[cut:] if line.strip() else "" for line in lines]


def read_snippets(root, errors):
    snippets = {}
    for path in sorted(list((root / "tests").rglob("*")) + list((root / "examples").rglob("*"))):
        if not path.is_file() or path.suffix not in SOURCE_SUFFIXES:
            continue
        rel = path.relative_to(root)
        name, start, body = None, 0, []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            begin, end = BEGIN.match(line), END.match(line)
            if begin:
                if name:
                    errors.append(f"{rel}:{number}: snippet '{begin.group(1)}' starts inside snippet '{name}'")
                name, start, body = begin.group(1), number, []
            elif end:
                if not name:
                    errors.append(f"{rel}:{number}: [/snippet] without a [snippet:NAME] before it")
                    continue
                if name in snippets:
                    errors.append(f"{rel}:{start}: snippet '{name}' is also defined at {snippets[name][0]}")
                snippets[name] = (f"{rel}:{start}", dedent(body))
                name = None
            elif name:
                body.append(line.rstrip())
        if name:
            errors.append(f"{rel}:{start}: snippet '{name}' is never closed with [/snippet]")
    return snippets


def read_blocks(root, md, errors):
    """(kind, name, line number, block lines) for every marked fenced block of one markdown file."""
    blocks = []
    lines = md.read_text(encoding="utf-8").splitlines()
    rel = md.relative_to(root)
    i = 0
    while i < len(lines):
        marker = MD_SNIPPET.match(lines[i]) or MD_PART.match(lines[i])
        if not marker:
            i += 1
            continue
        kind = "snippet" if MD_SNIPPET.match(lines[i]) else "part"
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        fence = FENCE.match(lines[j]) if j < len(lines) else None
        if not fence:
            errors.append(f"{rel}:{i + 1}: '{lines[i]}' is not followed by a fenced code block")
            i += 1
            continue
        k = j + 1
        while k < len(lines) and not lines[k].startswith(fence.group(1)):
            k += 1
        if k == len(lines):
            errors.append(f"{rel}:{j + 1}: the code block is never closed")
        blocks.append((kind, marker.group(1), j + 1, [line.rstrip() for line in lines[j + 1:k]]))
        i = k + 1
    return blocks


def code_lines(lines):
    return [line.rstrip() for line in lines if line.strip() and not line.strip().startswith("//")]


def diff(expected, actual, expected_name, actual_name):
    return "\n".join(difflib.unified_diff(expected, actual, expected_name, actual_name, lineterm=""))


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    errors = []
    snippets = read_snippets(root, errors)
    shown = set()
    parts = {}
    checked = 0
    docs = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    for md in docs:
        rel = md.relative_to(root)
        for kind, name, line, block in read_blocks(root, md, errors):
            checked += 1
            if kind == "part":
                parts.setdefault(name, []).append((f"{rel}:{line}", block))
                continue
            if name not in snippets:
                errors.append(f"{rel}:{line}: no source defines snippet '{name}' (mark it with // [snippet:{name}])")
                continue
            shown.add(name)
            where, expected = snippets[name]
            if block != expected:
                errors.append(f"{rel}:{line}: the block of snippet '{name}' differs from its source {where}:\n" +
                              diff(expected, block, where, f"{rel}:{line}"))
    for name in sorted(set(snippets) - shown):
        errors.append(f"{snippets[name][0]}: snippet '{name}' is shown in no .md file (<!-- snippet: {name} -->)")
    for path, blocks in parts.items():
        source = root / path
        if not source.is_file():
            errors.append(f"{blocks[0][0]}: snippet-of names '{path}', which does not exist")
            continue
        expected = code_lines(source.read_text(encoding="utf-8").splitlines())
        actual = code_lines([line for _, block in blocks for line in block])
        if expected != actual:
            where = ", ".join(w for w, _ in blocks)
            errors.append(f"the code blocks marked snippet-of {path} ({where}) are not, together, the code of that "
                          f"file (blank and comment-only lines aside):\n" + diff(expected, actual, path, "the blocks"))
    if errors:
        print("\n\n".join(errors))
        print(f"\nsnippets_match: {len(errors)} problem(s)")
        return 1
    print(f"snippets_match: {checked} marked code blocks match their sources ({len(snippets)} snippets, "
          f"{len(parts)} whole files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
