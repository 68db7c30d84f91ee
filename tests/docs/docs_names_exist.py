#!/usr/bin/env python3
"""Checks that every file, tool, target, test, symbol and environment variable the documentation names exists.

Prose goes stale where code moves; snippets_match.py keeps the code blocks honest, this keeps the names honest. It
reads README.md and every docs/**/*.md and checks:

* links      a relative link [text](path#anchor) names a file that exists, and an anchor names a heading of it
             (GitHub's slugs).
* paths      a repository path (include/ apps/ tests/ bench/ docs/ src/ examples/ cmake/ ..., anywhere in the
             text), a header as `cudp/x.hpp` (against include/), a path in code spans that starts with a folder of
             include/cudp (`engine/x.cuh`, `tiers/`: against include/cudp/), and a file name alone in a code span
             (`gotoh.hpp`: somewhere in the repository) exists; globs and {a,b} lists are expanded.
* tools      `cudp-NAME` is an add_executable target (build/bin/cudp-NAME: of apps/; build/bench/cudp-NAME: of
             bench/); a `cmake --build ... --target NAME` is a target.
* targets    `cudp::NAME` (one component) is a CMake target of the project (`cudp::hmmer`) or a namespace.
* symbols    a qualified C++ name in a code span or an unmarked C++ block (`engine::DeviceScorer`,
             `engine::detail::stripe_rows`, `DeviceMsvFilter::survivors`, `L::add_max`) is declared in include/,
             apps/, src/, bench/ or tests/: its last component as a declared name (type, function, member, alias,
             enumerator, macro) in a scope whose enclosing namespaces and classes contain every qualifier, in order
             (`cudp::` may be left out; a template parameter such as L or Tier stands for any class). A code span
             that is a single CamelCase name or a call `name()` must be declared somewhere too.
* tests      a name given as a test (`ctest X`, `the test X`, `-R X`, or any `NAME_test`) is registered with ctest
             in tests/ (foreach loops expanded), or names a test file.
* env        `CUDP_*` names are a macro, a CMake option or variable, or an environment variable some code reads
             (getenv in C++, $NAME in a script); one said to be an environment variable must be read as one; and
             a paragraph naming an environment variable that only apps/ or bench/ read must say which program reads
             it (a `cudp-*` tool, an apps/ or bench/ path, or the words program/tool/benchmark): the library
             reads no environment, so "CUDP_TIERS overrides DeviceScorer" is a stale claim.

A name that is deliberately hypothetical is listed in ALLOWED with its reason and the pages it may appear in; an
entry no page uses any more is itself an error, so the list cannot rot. Every problem is printed as
`page:line: kind: name: why`. Usage: docs_names_exist.py REPO_ROOT
       docs_names_exist.py REPO_ROOT --self-test tests/docs/stale_names.md   (each kind of stale name is caught)
"""
import fnmatch
import itertools
import pathlib
import posixpath
import re
import subprocess
import sys

# Deliberately hypothetical names: (kind, name) -> (pages it may appear in, why it is allowed).
ALLOWED = {
    ("path", "bench/data/db.fa"): (["docs/benchmarks.md"], "written by bench/device.sh, not kept in the repository"),
    ("tool", "cudp-blastp"): (["docs/status.md"], "planned (gapped BLAST), listed as not built"),
    ("tool", "cudp-mrf"): (["docs/status.md"], "planned, listed as not built"),
}

# Namespaces of other projects: their names are not ours to check.
EXTERNAL_NAMESPACES = {"std", "cub", "thrust", "hwy", "Eigen", "boost", "MPI", "Catch", "testing", "cuda", "nvcuda"}
# Names of other projects that the documentation cites: CUB, Thrust, Highway, BEAGLE, MrBayes, Easel, HMMER's
# tests, SeqAn3, parasail's routines and program, the C types.
FOREIGN_NAMES = {"DeviceRadixSort", "copy_if", "TableLookupBytes", "InitBeagleInstance", "ByPartition",
                 "JointToConditionalOnQuery", "hmmpgmd2msa_utest", "align_pairwise", "sg_trace", "nw_trace",
                 "parasail_aligner", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t",
                 "uint64_t", "size_t"}
# Template parameters the documentation writes as qualifiers: they stand for any class.
TEMPLATE_PARAMETERS = {"L", "P", "Lane", "Tier", "Policy", "Narrow", "Wide", "Real", "Seg", "Group", "Menu", "Shape"}
# Prefixes of names from the C libraries cudp reproduces or links (HMMER, Easel, BEAGLE, CUDA, Highway, MPI).
FOREIGN_PREFIXES = ("p7_", "esl_", "impl_", "beagle", "Beagle", "BEAGLE", "cuda", "__", "HWY_", "Hwy", "MPI_",
                    "hmmer_", "Ssv", "nvcc")
# Environment variables of the system and of other tools.
FOREIGN_ENV = {"LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS", "CXX", "CC", "PATH", "TMPDIR",
               "DEBIAN_FRONTEND", "CMAKE_PREFIX_PATH", "HOME", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
               "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS", "CMAKE_BUILD_TYPE", "CMAKE_CUDA_ARCHITECTURES",
               "HMMER_NCPU", "CUDA_LAUNCH_BLOCKING", "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_",
               "MALLOC_TOP_PAD_"}

REPO_DIRS = ("include", "apps", "tests", "bench", "docs", "src", "examples", "cmake")
LAYERS = ("lanes", "recurrences", "tiers", "host", "engine", "io", "bio", "hmmer", "align", "phylo")
CODE_SUFFIXES = {".hpp", ".cuh", ".cpp", ".cu", ".h", ".cc"}
FILE_SUFFIXES = ("hpp", "cuh", "cpp", "cu", "h", "py", "sh", "cmake", "in")


def git_files(root):
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, text=True, check=True).stdout
        return [f for f in out.splitlines() if (root / f).exists()]
    except (OSError, subprocess.CalledProcessError):
        paths = (p.relative_to(root) for p in root.rglob("*") if p.is_file())
        return [str(p) for p in paths if not p.parts[0].startswith(("build", ".git"))]


# ----------------------------------------------------------------------------------------------------------------
# The code: declarations with their scopes.

def strip_code(text):
    """Comments and string literals blanked (newlines kept); string literals returned apart."""
    out, strings, i, n = [], [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            strings.append(text[i:end])
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separators 1'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            strings.append(text[i + 1:j])
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out), strings


IDENT = r"[A-Za-z_]\w*"
NOISE = re.compile(r"\[\[.*?\]\]|\balignas\s*\([^()]*\)|__align__\s*\([^()]*\)|__launch_bounds__\s*\([^()]*\)|"
                   r"__attribute__\s*\(\(.*?\)\)|\bdecltype\s*\((?:[^()]|\([^()]*\))*\)|\bnoexcept\s*\([^()]*\)|"
                   r"\bHWY_ATTR\b|\boperator\s*[^\s(]+\s*(?=\()|\bCUDP_\w+_INLINE\b")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "static_assert", "alignof", "catch", "new", "delete",
            "const", "constexpr", "static", "inline", "virtual", "explicit", "template", "typename", "class",
            "struct", "void", "int", "bool", "auto", "unsigned", "long", "char", "float", "double", "short",
            "operator", "throw", "using", "friend", "extern", "mutable", "volatile", "default", "public",
            "private", "protected", "enum", "union", "namespace", "do", "else", "case", "goto", "decltype",
            "noexcept", "override", "final", "this", "true", "false", "nullptr", "requires", "typedef"}


def angle_depth_split(text, sep=","):
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth = max(0, depth - 1)
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def declared_in_statement(stmt):
    """(name, extra qualifiers) declared by one statement of a namespace or class scope."""
    stmt = NOISE.sub(" ", stmt)
    stmt = re.sub(r"\b(public|private|protected)\s*:(?!:)", " ", stmt)
    stmt = re.sub(r"^\s*template\s*<", "<", stmt)
    # Drop leading template parameter lists.
    while True:
        s = stmt.lstrip()
        if not s.startswith("<"):
            break
        depth, k = 0, 0
        for k, ch in enumerate(s):
            depth += ch == "<"
            depth -= ch == ">"
            if depth == 0:
                break
        stmt = s[k + 1:]
        stmt = re.sub(r"^\s*template\s*(?=<)", "", stmt)
    found = []
    for m in re.finditer(rf"\b(?:struct|class|union|enum(?:\s+class|\s+struct)?|concept)\s+({IDENT})", stmt):
        if m.group(1) not in KEYWORDS:
            found.append((m.group(1), []))
    m = re.search(rf"\busing\s+({IDENT})\s*=", stmt)
    if m:
        found.append((m.group(1), []))
        m = re.search(rf"\busing\s+{IDENT}\s*=\s*(?:typename\s+)?((?:{IDENT}\s*::\s*)*{IDENT})", stmt)
        if m:
            found.append(("=" + m.group(1).split("::")[-1].strip(), []))
    m = re.search(rf"\btypedef\b.*?({IDENT})\s*(?:\[[^\]]*\])?\s*$", stmt, re.S)
    if m:
        found.append((m.group(1), []))
    if found or re.match(r"\s*(using|namespace|friend|static_assert|return)\b", stmt):
        return found
    # A function: the name before the first parenthesis outside template arguments (Class::name for one defined
    # out of line).
    depth = 0
    for k, ch in enumerate(stmt):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == "(" and depth == 0:
            m = re.search(rf"((?:{IDENT}\s*(?:<[^()]*>)?\s*::\s*)*)(~?{IDENT})\s*$", stmt[:k])
            eq = stmt.find("=")
            if m and (eq < 0 or eq > k) and m.group(2) not in KEYWORDS:
                quals = [q for q in re.findall(IDENT, re.sub(r"<[^()]*>", "", m.group(1)))]
                return [(m.group(2).lstrip("~"), quals)]
            break
        elif ch in "={":
            break
    # Variables and members: the last name before '=', '{', '[' or the end, for each declarator.
    head = stmt.split("=")[0] if "(" not in stmt.split("=")[0] else ""
    if head:
        for part in angle_depth_split(head):
            m = re.search(rf"({IDENT})\s*(?:\[[^\]]*\]\s*)*(?::\s*\d+\s*)?$", part.strip())
            if m and m.group(1) not in KEYWORDS:
                found.append((m.group(1), []))
    return found


class CodeIndex:
    def __init__(self, root, files):
        self.decls = {}          # name -> list of (scope tuple, file)
        self.scope_names = set() # every namespace or class name
        self.macros = set()
        self.parents = {}        # class or alias name -> the classes it derives from or names
        self.strings_in_getenv_files = {}  # string literal -> files that call getenv
        self.files = files
        self.decls_order = []
        for rel in files:
            path = root / rel
            if path.suffix not in CODE_SUFFIXES or not rel.startswith(("include/", "apps/", "src/", "bench/",
                                                                         "tests/", "examples/")):
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            self.index_file(rel, text)

    def add(self, name, scope, rel):
        if name.startswith("="):  # using alias = target: the alias before it names target
            alias = self.decls_order[-1] if self.decls_order else None
            if alias:
                self.parents.setdefault(alias, set()).add(name[1:])
            return
        self.decls_order.append(name)
        self.decls.setdefault(name, []).append((tuple(scope), rel))

    def ancestors(self, name):
        seen, todo = {name}, [name]
        while todo:
            for p in self.parents.get(todo.pop(), ()):
                if p not in seen:
                    seen.add(p)
                    todo.append(p)
        return seen

    def index_file(self, rel, text):
        code, strings = strip_code(text)
        if "getenv" in code:
            for s in strings:
                if re.fullmatch(r"[A-Z][A-Z0-9_]+", s):
                    self.strings_in_getenv_files.setdefault(s, set()).add(rel)
        lines = []
        for line in code.split("\n"):
            m = re.match(rf"\s*#\s*define\s+({IDENT})", line)
            if m:
                self.macros.add(m.group(1))
                self.add(m.group(1), (), rel)
            # Preprocessor lines (and their continuations) out.
            lines.append("" if line.lstrip().startswith("#") else line)
        code = "\n".join(lines)
        code = re.sub(r"\\\n", " ", code)
        stack = []  # entries: (kind, name) with kind 'ns', 'class', 'enum', 'block', 'transparent'
        stmt = []
        pending = None  # what the next '{' opens
        i, n = 0, len(code)
        while i < n:
            ch = code[i]
            if ch in ";{}":
                text_stmt = "".join(stmt)
                stmt = []
                in_block = any(kind == "block" for kind, _ in stack)
                scope = [name for kind, name in stack if kind in ("ns", "class", "enum") and name]
                if ch == "{":
                    kind, name = self.opens(text_stmt)
                    if not in_block:
                        if stack and stack[-1][0] == "enum":
                            self.enumerators(text_stmt, scope, rel)
                        elif kind != "ns":
                            for decl, quals in declared_in_statement(text_stmt):
                                if kind == "class" and decl == name:
                                    continue
                                self.add(decl, scope + quals, rel)
                        if kind == "class" and name:
                            m = re.search(rf"\b{name}\b[^:{{]*:(?!:)(.*)$", NOISE.sub(" ", text_stmt), re.S)
                            if m:
                                bases = re.sub(r"<[^<>]*>", "", re.sub(r"<[^<>]*>", "", m.group(1)))
                                for base in angle_depth_split(bases):
                                    words = re.findall(IDENT, base)
                                    if words:
                                        self.parents.setdefault(name, set()).add(words[-1])
                        if kind in ("class", "enum") and name:
                            self.add(name, scope, rel)
                            self.scope_names.add(name)
                        if kind == "ns":
                            parts = [p for p in name.split("::") if p]
                            for k, part in enumerate(parts):
                                self.scope_names.add(part)
                                self.add(part, scope + parts[:k], rel)
                    if in_block:
                        kind = "block"
                    if kind == "ns":
                        parts = [p for p in name.split("::") if p and p != "inline"]
                        if not parts:
                            stack.append(("transparent", ""))
                        else:
                            for p in parts:
                                stack.append(("ns", p))
                            # one '}' closes all of a::b::c
                            stack[-len(parts):] = [("ns", "::".join(parts))]
                    else:
                        stack.append((kind, name))
                elif ch == "}":
                    if not in_block:
                        if stack and stack[-1][0] == "enum":
                            self.enumerators(text_stmt, scope, rel)
                        elif text_stmt.strip():
                            for decl, quals in declared_in_statement(text_stmt):
                                self.add(decl, scope + quals, rel)
                    if stack:
                        stack.pop()
                else:  # ';'
                    if not in_block and not (stack and stack[-1][0] == "enum"):
                        for decl, quals in declared_in_statement(text_stmt):
                            self.add(decl, scope + quals, rel)
                i += 1
                continue
            stmt.append(ch)
            i += 1

    @staticmethod
    def opens(stmt):
        s = NOISE.sub(" ", stmt)
        m = re.search(rf"\bnamespace\s*((?:{IDENT}\s*::\s*)*{IDENT})?\s*$", s)
        if m:
            return "ns", re.sub(r"\s", "", m.group(1) or "")
        if re.search(r'\bextern\s*""\s*$', s):
            return "ns", ""
        m = re.search(rf"\benum(?:\s+class|\s+struct)?\s+({IDENT})[^()]*$", s)
        if m:
            return "enum", m.group(1)
        if re.search(r"\benum\b[^()]*$", s):
            return "enum", ""
        m = re.search(rf"\b(?:struct|class|union)\s+({IDENT})(?:\s+final)?\s*(<.*>)?\s*(:[^{{;]*)?$", s, re.S)
        if m and "(" not in (m.group(2) or "") and "=" not in s.split(m.group(0))[0][-3:]:
            return "class", m.group(1)
        return "block", ""

    def enumerators(self, text, scope, rel):
        for part in text.split(","):
            m = re.match(rf"\s*({IDENT})", part)
            if m:
                self.add(m.group(1), scope, rel)
                self.add(m.group(1), scope[:-1], rel)  # unscoped enums leak; scoped ones are also Enum::X

    def find(self, qualified):
        """Whether qualified (a list of components) is declared: the last component in a scope containing the
        qualifiers in order. Returns (ok, hint)."""
        *quals, name = qualified
        if quals and quals[0] == "cudp":
            quals = quals[1:]
        entries = self.decls.get(name, [])
        if not entries:
            return False, f"no declaration of '{name}' in include/, apps/, src/, bench/ or tests/"
        if not quals:
            return True, ""
        wanted = [None if (q in TEMPLATE_PARAMETERS or re.fullmatch(r"[A-Z]", q)) else self.ancestors(q)
                  for q in quals]
        for scope, _ in entries:
            flat = [p for s in scope for p in s.split("::")]
            k = 0
            for part in flat:
                if k < len(wanted) and (wanted[k] is None or part in wanted[k]):
                    k += 1
            if k == len(wanted):
                return True, ""
        where = sorted({"::".join(s) + " (" + f + ")" for s, f in entries})[:4]
        return False, f"'{name}' is declared, but in " + "; ".join(where)


# ----------------------------------------------------------------------------------------------------------------
# The build: executables, CMake targets, tests, options.

def cmake_files(root, files):
    return [f for f in files if f.endswith("CMakeLists.txt") or f.endswith(".cmake")]


def expand_cmake(text):
    """(line, [(foreach var, items)...]) for each line, so that ${var} in a name can be expanded."""
    stack, out = [], []
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"foreach\s*\(\s*(\w+)\s+(.*?)\)?\s*$", s)
        if m:
            items = m.group(2).rstrip(")").split()
            if items[:1] == ["IN"]:
                items = items[2:]
            stack.append((m.group(1), items))
        elif re.match(r"endforeach\s*\(", s):
            if stack:
                stack.pop()
        out.append((line, list(stack)))
    return out


def expansions(name, stack, sets=None):
    """The names ${var} in name can be: foreach items, then set() values of the file (a name that still starts
    with a variable, a function's parameter, is dropped: the calls of that function register the names)."""
    names = [name]
    for var, items in reversed(stack):
        if f"${{{var}}}" in name and not any("${" in it for it in items):  # else it stays a wildcard
            names = [n.replace(f"${{{var}}}", it) for n in names for it in items]
    for _ in range(4):
        expanded = []
        for n in names:
            m = re.search(r"\$\{(\w+)\}", n)
            if m and sets and m.group(1) in sets and not n.startswith("${" + m.group(1) + "}" + "_needs"):
                expanded += [n.replace(m.group(0), v, 1) for v in sets[m.group(1)] if m.group(0) not in v]
            else:
                expanded.append(n)
        names = expanded
    return [n for n in names if not n.startswith("${")]


def wrapper_functions(texts):
    """CMake functions that make an executable or a library of one of their parameters: name -> (kind, index)."""
    wrappers = {}
    for text in texts:
        for m in re.finditer(r"^\s*function\s*\(\s*(\w+)([^)]*)\)(.*?)^\s*endfunction", text, re.M | re.S):
            params = m.group(2).split()
            for kind, call in (("executable", "add_executable"), ("library", "add_library")):
                made = re.search(rf"\b{call}\s*\(\s*\$\{{(\w+)\}}", m.group(3))
                if made and made.group(1) in params:
                    wrappers[m.group(1)] = (kind, params.index(made.group(1)))
    return wrappers


class BuildIndex:
    def __init__(self, root, files):
        self.executables = {}  # name -> directory of the CMakeLists
        self.targets = set()
        self.tests = set()
        self.test_patterns = []
        self.cmake_words = set()
        self.functions = set()
        texts = {rel: (root / rel).read_text(encoding="utf-8", errors="replace") for rel in cmake_files(root, files)}
        wrappers = wrapper_functions(texts.values())
        for rel, text in texts.items():
            self.cmake_words |= set(re.findall(r"\b[A-Z][A-Z0-9_]+\b", text))
            self.functions |= set(re.findall(r"^\s*(?:function|macro)\s*\(\s*(\w+)", text, re.M))
            sets = {}
            for m in re.finditer(r"^\s*set\s*\(\s*(\w+)\s+([^\s)]+)\s*\)", text, re.M):
                sets.setdefault(m.group(1), []).append(m.group(2))
            for line, stack in expand_cmake(text):
                for m in re.finditer(r"\badd_executable\s*\(\s*([\w${}.+-]+)", line):
                    for n in expansions(m.group(1), stack):
                        self.executables[n] = rel
                        self.targets.add(n)
                for m in re.finditer(r"\b(\w+)\s*\(([^()]*)", line):
                    if m.group(1) in wrappers and not re.match(r"\s*(function|macro)\b", line):
                        kind, index = wrappers[m.group(1)]
                        args = m.group(2).split()
                        if index < len(args):
                            for n in expansions(args[index], stack, sets):
                                self.targets.add(n)
                                if kind == "executable":
                                    self.executables[n] = rel
                for m in re.finditer(r"\badd_library\s*\(\s*([\w${}:.+-]+)", line):
                    self.targets |= set(expansions(m.group(1), stack))
                for m in re.finditer(r"\b(?:add_custom_target|cudp_add_\w+)\s*\(\s*([\w${}.+-]+)", line):
                    for n in expansions(m.group(1), stack, sets):
                        self.targets.add(n)
                        if "test" in m.group(0) or "oracle" in m.group(0):
                            self.add_test(n)
                for m in re.finditer(r"\b(?:add_test\s*\(\s*NAME|cudp_register_test\s*\()\s*([\w${}.+-]+)", line):
                    for n in expansions(m.group(1), stack, sets):
                        self.add_test(n)
                        if "_needs_" not in n:
                            self.add_test(n + "_needs_${kind}")

    def add_test(self, name):
        if "${" in name:
            self.test_patterns.append(re.compile(re.sub(r"\\\$\\\{\w+\\\}", r"[\\w.+-]*", re.escape(name))))
        else:
            self.tests.add(name)

    def is_test(self, name):
        if "*" in name:
            rx = re.compile(fnmatch.translate(name))
            return any(rx.match(t) for t in self.tests) or any(
                p.fullmatch(name.replace("*", "x")) for p in self.test_patterns)
        return name in self.tests or any(p.fullmatch(name) for p in self.test_patterns)


# ----------------------------------------------------------------------------------------------------------------
# The documentation.

FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*(\S*)")


def github_slug(heading):
    text = re.sub(r"`", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def headings(text):
    slugs, seen, fenced = set(), {}, False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m and not fenced:
            slug = github_slug(m.group(1))
            k = seen.get(slug, 0)
            seen[slug] = k + 1
            slugs.add(slug if k == 0 else f"{slug}-{k}")
    return slugs


class Page:
    def __init__(self, root, rel):
        self.rel = rel
        self.text = (root / rel).read_text(encoding="utf-8")
        self.text = re.sub(r"<!--.*?-->", lambda m: re.sub(r"[^\n]", " ", m.group(0)), self.text, flags=re.S)
        self.lines = self.text.split("\n")
        self.blocks = []  # (first line number, info, marked?, text)
        prose = []
        raw = (root / rel).read_text(encoding="utf-8").split("\n")
        i = 0
        while i < len(self.lines):
            m = FENCE.match(self.lines[i])
            if not m:
                prose.append(self.lines[i])
                i += 1
                continue
            j = i + 1
            while j < len(self.lines) and not self.lines[j].lstrip().startswith(m.group(2)):
                j += 1
            k = i - 1
            while k >= 0 and not raw[k].strip():
                k -= 1
            marked = k >= 0 and raw[k].strip().startswith("<!--") and "snippet" in raw[k]
            self.blocks.append((i + 2, m.group(3), marked, "\n".join(self.lines[i + 1:j])))
            prose.extend([""] * (j + 1 - i))
            i = j + 1
        self.prose = "\n".join(prose)
        self.title = next((l for l in self.lines if l.startswith("# ")), "")

    def line_of(self, offset, text=None):
        return (self.prose if text is None else text).count("\n", 0, offset) + 1

    def spans(self):
        """(line, code span text) of the prose; spans may cross a line break."""
        for m in re.finditer(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", self.prose, re.S):
            yield self.line_of(m.start()), m.group(2).strip(), m.start()

    def paragraph_at(self, offset):
        start = self.prose.rfind("\n\n", 0, offset)
        end = self.prose.find("\n\n", offset)
        return self.prose[start + 1 if start >= 0 else 0:end if end >= 0 else len(self.prose)]


class Checker:
    def __init__(self, root):
        self.root = root
        self.files = git_files(root)
        self.file_set = set(self.files)
        self.dirs = {str(pathlib.PurePosixPath(f).parent) for f in self.files}
        self.dirs |= {str(p) for f in self.files for p in pathlib.PurePosixPath(f).parents}
        self.basenames = {pathlib.PurePosixPath(f).name for f in self.files}
        self.code = CodeIndex(root, self.files)
        self.build = BuildIndex(root, self.files)
        self.script_text = "\n".join(
            (root / f).read_text(encoding="utf-8", errors="replace") for f in self.files
            if f.endswith((".sh", ".py", ".cmake", "CMakeLists.txt", ".in")) or "/" not in f and f.endswith(".sh"))
        self.script_words = set(re.findall(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", self.script_text))
        self.errors = []
        self.allowed_used = set()
        self.counts = {}

    def error(self, page, line, kind, name, why):
        message = f"{page.rel}:{line}: {kind}: {name}: {why}"
        if message in self.errors:
            return
        key = (kind, name)
        if key in ALLOWED and any(fnmatch.fnmatch(page.rel, p) for p in ALLOWED[key][0]):
            self.allowed_used.add(key)
            return
        self.errors.append(message)

    def count(self, kind):
        self.counts[kind] = self.counts.get(kind, 0) + 1

    # -- files -----------------------------------------------------------------------------------------------
    def exists(self, rel):
        rel = rel.rstrip("/")
        if not rel:
            return True
        if any(ch in rel for ch in "*?["):
            return any(fnmatch.fnmatch(f, rel) for f in self.files) or any(fnmatch.fnmatch(d, rel) for d in self.dirs)
        return rel in self.file_set or rel in self.dirs

    @staticmethod
    def braces(path):
        m = re.search(r"\{([^{}]*)\}", path)
        if not m:
            return [path]
        return [p for alt in m.group(1).split(",") for p in Checker.braces(path[:m.start()] + alt + path[m.end():])]

    def check_path(self, page, line, path, base=""):
        path = re.sub(r":\d+(-\d+)?$", "", path).rstrip(".,;:)")
        if not path or path.endswith("/..."):
            return
        self.count("path")
        for p in self.braces(path):
            if not self.exists(base + p):
                self.error(page, line, "path", path, f"{base + p} does not exist")
                return

    # -- the checks ------------------------------------------------------------------------------------------
    def check_links(self, page):
        for m in re.finditer(r"\]\(([^)\s]+)\)", self.mask_code(page.prose)):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            self.count("link")
            line = page.line_of(m.start())
            path, _, anchor = target.partition("#")
            base = pathlib.PurePosixPath(page.rel).parent
            rel = posixpath.normpath(str(base / path)) if path else page.rel
            if path and not self.exists(rel):
                self.error(page, line, "link", target, f"{rel} does not exist")
                continue
            if anchor and rel.endswith(".md"):
                if anchor not in headings((self.root / rel).read_text(encoding="utf-8")):
                    self.error(page, line, "link", target, f"{rel} has no heading whose anchor is #{anchor}")

    @staticmethod
    def mask_code(text):
        return re.sub(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text,
                      flags=re.S)

    def all_text(self, page):
        yield page.prose, 1, False
        for first, info, marked, text in page.blocks:
            yield text, first, True

    def check_paths(self, page):
        rx = re.compile(r"(?<![\w./${}-])((?:%s)/[\w./*{},+-]*)" % "|".join(REPO_DIRS))
        for text, first, is_block in self.all_text(page):
            for m in rx.finditer(text):
                path = m.group(1)
                line = first + text.count("\n", 0, m.start()) - (0 if is_block else 0)
                if path.startswith("include/cudp/"):
                    pass
                self.check_path(page, line, path)
            # <cudp/x.hpp>, "cudp/x.hpp", `cudp/x.hpp`
            for m in re.finditer(r"(?<![\w./-])cudp/([\w./*{},+-]+\.(?:hpp|cuh|h))", text):
                self.check_path(page, first + text.count("\n", 0, m.start()), "include/cudp/" + m.group(1))
        for line, span, _ in page.spans():
            for word in span.split():
                word = word.strip("(),;:'\"")
                first = word.split("/")[0]
                if "/" in word and first in LAYERS and not re.search(r"[<>=]", word):
                    self.check_path(page, line, word, base="include/cudp/")
                elif re.fullmatch(r"[\w.+-]+\.(?:%s)" % "|".join(FILE_SUFFIXES), word) and "/" not in word:
                    self.count("file")
                    if word not in self.basenames:
                        self.error(page, line, "file", word, "no file of that name in the repository")

    def check_tools(self, page):
        for text, first, _ in self.all_text(page):
            for m in re.finditer(r"(?<![\w/.-])((?:build[\w-]*/(bin|bench)/)?)(cudp-[a-z0-9][a-z0-9-]*)(?![\w.-])",
                                 text):
                prefix, where, tool = m.group(1), m.group(2), m.group(3)
                line = first + text.count("\n", 0, m.start())
                self.count("tool")
                if tool not in self.build.executables:
                    if tool in ("cudp-beagle",):  # the install folder of libhmsbeagle.so.1 (apps/beagle)
                        continue
                    self.error(page, line, "tool", tool, "no add_executable target of that name (apps/, bench/)")
                    continue
                home = self.build.executables[tool]
                if where == "bin" and not home.startswith("apps/"):
                    self.error(page, line, "tool", prefix + tool, f"built in {home}, which does not put it in bin/")
                if where == "bench" and not home.startswith("bench/"):
                    self.error(page, line, "tool", prefix + tool, f"built in {home}, not in bench/")
            for m in re.finditer(r"cmake\s+--build\s+\S+(?:\s+-j\S*)?\s+--target\s+([\w.+-]+)", text):
                self.count("target")
                if m.group(1) not in self.build.targets and m.group(1) not in ("all", "install", "clean"):
                    self.error(page, first + text.count("\n", 0, m.start()), "target", m.group(1),
                               "no CMake target of that name")

    def qualified_names(self, text):
        text = re.sub(r"\bHWY_NAMESPACE\b", "HWY_NAMESPACE", text)
        prev = None
        while prev != text:
            prev = text
            text = re.sub(r"<[^<>`]*>", "", text)
        for m in re.finditer(rf"(?<![\w:.])((?:{IDENT}::)+~?{IDENT})", text):
            yield m.group(1), m.start()

    def check_symbols(self, page, tests=()):
        sources = [(line, span) for line, span, _ in page.spans()]
        for first, info, marked, text in page.blocks:
            if not marked and info in ("cpp", "c++", "cuda", "cu"):
                code, _ = strip_code(text)
                for n, l in enumerate(code.split("\n")):
                    sources.append((first + n, l))
        for line, text in sources:
            for name, _ in self.qualified_names(text):
                parts = name.split("::")
                parts = [re.sub(r"^N_[A-Z0-9_]+$", "HWY_NAMESPACE", p) for p in parts]  # Highway's target namespaces
                if parts[0] in EXTERNAL_NAMESPACES or name.startswith(FOREIGN_PREFIXES) or parts[0] in FOREIGN_NAMES:
                    continue
                self.count("symbol")
                if len(parts) == 2 and parts[0] == "cudp":
                    if ("cudp::" + parts[1]) in self.build.targets or parts[1] in self.code.scope_names:
                        continue
                    self.error(page, line, "target", name, "neither a CMake target nor a namespace of cudp")
                    continue
                if parts[0] not in self.code.scope_names and parts[0] not in TEMPLATE_PARAMETERS and \
                        not re.fullmatch(r"[A-Z]", parts[0]):
                    self.error(page, line, "symbol", name, f"'{parts[0]}' is no namespace or class of the code")
                    continue
                ok, why = self.code.find(parts)
                if not ok:
                    self.error(page, line, "symbol", name, why)
        for line, span, offset in page.spans():
            s = span
            if offset in tests:
                continue
            m = re.fullmatch(rf"({IDENT})(?:<[^`]*>)?(\(\))?", s)
            if not m or s.startswith(FOREIGN_PREFIXES) or "::" in s:
                continue
            name, call = m.group(1), m.group(2)
            camel = re.fullmatch(r"[A-Z][a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+", name) is not None
            snake = re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", name) is not None
            if not (camel or call or snake) or name in FOREIGN_NAMES:
                continue
            if snake and not call and (self.build.is_test(name) or name in self.build.targets or
                                       name in self.script_words):
                continue
            self.count("symbol")
            if name not in self.code.decls:
                where = " nor a word of a script or CMake file" if snake and not call else ""
                self.error(page, line, "symbol", s, f"no declaration of '{name}' in include/, apps/, src/, bench/ "
                                                    f"or tests/{where}")

    def check_tests(self, page):
        """Returns the offsets of the spans it took as test names."""
        taken = set()
        for line, span, offset in page.spans():
            before = page.prose[max(0, offset - 12):offset].lower()
            name = span.strip()
            if not re.fullmatch(r"[\w*.+-]+", name):
                continue
            said = re.search(r"(?:\btests?|ctest|-r)\s*$", before) is not None
            if not (said or name.endswith("_test")):
                continue
            if "/" in name or re.search(r"\.(cpp|cu|sh|py)$", name) or name in self.build.functions:
                continue
            self.count("test")
            taken.add(offset)
            if not (self.build.is_test(name) or name in self.build.targets):
                self.error(page, line, "test", name, "no ctest test of that name is registered in tests/")
        return taken

    def env_readers(self, name):
        readers = set(self.code.strings_in_getenv_files.get(name, set()))
        for f in self.files:
            if f.endswith((".sh", ".py")) and not f.startswith("docs/"):
                text = (self.root / f).read_text(encoding="utf-8", errors="replace")
                if re.search(rf"\$\{{?{name}\b|environ(?:\.get\()?\[?[\"']{name}[\"']", text):
                    readers.add(f)
        return readers

    def check_env(self, page):
        seen = set()
        for text, first, is_block in self.all_text(page):
            names = [(m.group(1), m.start(), False) for m in
                     re.finditer(r"(?:(?<=-D)|(?<![\w$]))(CUDP_[A-Z0-9_]+)", text)]
            names += [(m.group(1), m.start(), True) for m in
                      re.finditer(r"(?:^|(?<=[\s`(]))([A-Z][A-Z0-9_]{2,})=(?!=)", text, re.M)]
            for name, offset, assigned in names:
                line = first + text.count("\n", 0, offset)
                if name in FOREIGN_ENV or (not name.startswith("CUDP_") and not assigned):
                    continue
                key = (name, line)
                if key in seen:
                    continue
                seen.add(key)
                self.count("env")
                before = text[max(0, offset - 3):offset]
                if before.endswith("-D"):
                    if name not in self.build.cmake_words:
                        self.error(page, line, "cmake", name, "no CMake option or variable of that name")
                    continue
                readers = self.env_readers(name)
                para = page.paragraph_at(offset) if not is_block else text
                said_env = re.search(rf"{name}\W[^.]*\benvironment\b|\benvironment variables?\W+`?{name}",
                                     re.sub(r"\s+", " ", para)) is not None
                if not readers:
                    if said_env or assigned:
                        self.error(page, line, "env", name, "no code reads it from the environment (getenv, $NAME)")
                    elif name not in self.code.macros and name not in self.build.cmake_words and \
                            name not in self.code.decls:
                        self.error(page, line, "env", name, "neither a macro, a CMake option or variable, nor an "
                                                            "environment variable any code reads")
                    continue
                if is_block or all(r.startswith("include/") for r in readers):
                    continue
                if page.title and re.search(r"cudp-[a-z]", page.title):
                    continue  # a tool's own page
                flat = re.sub(r"\s+", " ", para)
                if not re.search(r"cudp-[a-z]|\b(apps|bench|tests)/|\bprograms?\b|\btools?\b|\bbenchmarks?\b|"
                                 r"\bscripts?\b|\.sh\b", flat):
                    self.error(page, line, "env", name,
                               f"read only by {', '.join(sorted(readers))}, but the paragraph names no program that "
                               "reads it (the library reads no environment)")

    def run(self, pages=None):
        fixture = pages is not None
        if pages is None:
            pages = ["README.md"] + sorted(str(p.relative_to(self.root)) for p in (self.root / "docs").rglob("*.md"))
        for rel in pages:
            if rel not in self.file_set:
                continue
            page = Page(self.root, rel)
            self.check_links(page)
            self.check_paths(page)
            self.check_tools(page)
            self.check_symbols(page, self.check_tests(page))
            self.check_env(page)
        for key, (where, why) in ALLOWED.items():
            if key not in self.allowed_used and not fixture:
                self.errors.append(f"docs_names_exist.py: ALLOWED {key[0]} '{key[1]}' ({why}) is used by no page "
                                   f"it is allowed in ({', '.join(where)}): remove it from the list")
        return pages


def self_test(root, fixture):
    """Every line of the fixture marked <!-- expect: KIND --> must be reported as KIND, and no other line."""
    checker = Checker(root)
    checker.file_set.add(fixture)
    checker.run([fixture])
    raw = (root / fixture).read_text(encoding="utf-8").split("\n")
    expected = {n + 1: set(re.findall(r"<!--\s*expect:\s*([\w ]+?)\s*-->", l)[0].split())
                for n, l in enumerate(raw) if "expect:" in l}
    got = {}
    for e in checker.errors:
        m = re.match(rf"{re.escape(fixture)}:(\d+): (\w+): ", e)
        if m:
            got.setdefault(int(m.group(1)), set()).add(m.group(2))
    problems = []
    for line in sorted(set(expected) | set(got)):
        if expected.get(line, set()) != got.get(line, set()):
            problems.append(f"{fixture}:{line}: expected {sorted(expected.get(line, []))}, reported "
                            f"{sorted(got.get(line, []))}: {raw[line - 1].strip()}")
    if problems:
        print("\n".join(problems + [""] + checker.errors))
        print(f"\ndocs_names_exist --self-test: {len(problems)} line(s) not reported as expected")
        return 1
    print(f"docs_names_exist --self-test: each of the {len(expected)} stale names of {fixture} is reported, "
          "and nothing else")
    return 0


def main():
    if len(sys.argv) > 3 and sys.argv[2] == "--self-test":
        return self_test(pathlib.Path(sys.argv[1]).resolve(), sys.argv[3])
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    checker = Checker(root)
    pages = checker.run()
    if checker.errors:
        print("\n".join(checker.errors))
        print(f"\ndocs_names_exist: {len(checker.errors)} name(s) in the documentation that the repository does not "
              "have (fix the page, or list a deliberately hypothetical name in ALLOWED with its reason)")
        return 1
    counts = ", ".join(f"{v} {k}s" for k, v in sorted(checker.counts.items()))
    print(f"docs_names_exist: every name in {len(pages)} pages exists ({counts})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
