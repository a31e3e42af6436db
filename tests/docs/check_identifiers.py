#!/usr/bin/env python3
"""check_identifiers.py - docs that cannot drift (issue 24, item 5): every
srv_/store_/web_/matcher_/buf_ identifier (and its upper-case macro form,
SRV_/STORE_/WEB_/MATCHER_/BUF_) named in a Markdown file of the repository
or in a C comment must exist.

  python3 tests/docs/check_identifiers.py [--src DIR] [--build DIR]

What exists: every identifier of the C code (comments and string literals
removed) of the .c/.h files under matcher/ store/ web/ server/ (any depth),
plus the .c/.h the build generates (--build: the top of the build tree and
proto/), plus the shell functions and variables the test tooling defines
(tests/**/*.sh: `name()` and `NAME=`; the Markdown documents those too).
Code that compiles (-Werror: no implicit declarations) names only what is
declared somewhere, so "appears in the code" is "is a function, macro,
type, struct/enum tag, enum constant, variable or field of the sources";
names that only appear in #if/#ifdef/#ifndef/#elif/#undef lines do not
count.

What counts as a mention, in Markdown (prose, code spans and fenced
blocks alike) and in the comments of every .c/.h of the repository:
  - a token that starts with one of the prefixes and is not glued to a
    longer word: `store_run_get`, store_run_get(), `struct store_run`
    (test_store_runs, PARITY_STORE_BACKEND and parity_store are not
    mentions: the prefix is inside a longer word);
  - a wildcard: a `*` anywhere in the token is a glob that must match at
    least one existing name (`store_pg_job_*`, `srv_reply_*`,
    `store_q_col_*`); a bare prefix (`store_`, `srv_*`) names the module
    and is not checked;
  - a file name (the token followed by .c .h .md .sh .py .sql .mjs .txt):
    a file of that name must exist somewhere in the source tree.
  - a path of the repository (`server/http/http.c`, `tests/unit/`,
    `store/BACKENDS.md`): it must exist as a file or folder, or, without
    a file extension, be the start of one (`tests/unit/test_`,
    `migrations/sqlite/011`); placeholders (NNN, a trailing N) are skipped;
  - a bare .c or .h file name (`http.h`, `cli_report.c`): a file of that
    name must exist somewhere in the tree, unless it is a system or
    external library file (EXTERNAL_FILES below).
A deliberate mention of a name that does not exist (a rejected design, a
future verb) is written without the identifier: describe it in words.

On failure every unknown name is listed as "file:line: name", sorted by
file, then the count; exit 1.  Exit 0 and one summary line otherwise.
"""
import argparse
import fnmatch
import os
import re
import sys

PREFIXES = ("srv", "store", "web", "matcher", "buf")
MODULE_DIRS = ("matcher", "store", "web", "server")
FILE_EXTS = ("c", "h", "md", "sh", "py", "sql", "mjs", "txt", "cmake", "json")
SKIP_DIRS = {".git", "node_modules", "corpus"}
TOP_DIRS = ("matcher", "store", "web", "server", "tests", "deploy", "migrations")
# a repository path: one of the top folders, then path characters
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*\w)" % "|".join(TOP_DIRS))
# a bare C file name, not part of a path or an include's <...>
BARE_C = re.compile(r"(?<![\w./<-])([a-z_0-9]+\.[ch])(?![\w])")
# .c/.h names of the C library and of the libraries we build on, which
# the notes name (libmicrohttpd's daemon.c, jansson's value.c)
EXTERNAL_FILES = {"jansson.h", "microhttpd.h", "sqlite3.h", "cmocka.h", "setjmp.h",
                  "stdarg.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "string.h",
                  "daemon.c", "value.c", "curl.h", "libpq-fe.h", "zlib.h", "pcre2.h"}

# a mention: prefix_ + rest (letters, digits, _ and the glob *), not glued
# to a longer word on the left (a letter, digit, _ or $ before it)
PREFIX_ALT = "|".join(PREFIXES + tuple(p.upper() for p in PREFIXES))
MENTION = re.compile(r"(?<![A-Za-z0-9_$])((?:%s)_[A-Za-z0-9_*]*)" % PREFIX_ALT)
FILE_AFTER = re.compile(r"\.(%s)\b" % "|".join(FILE_EXTS))
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
COND_LINE = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|undef)\b.*$", re.M)
SH_DEF = re.compile(r"^\s*(?:function\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*\(\)|"
                    r"(?:^|[\s;(])(?:local\s+|export\s+|declare\s+-\w+\s+)?([A-Za-z_][A-Za-z0-9_]*)=")


def split_c(text):
    """(code, comments) of C source text: code with comments and string /
    character literals blanked (newlines kept), comments as a list of
    (line, text) with one entry per comment line."""
    code = []
    comments = []
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            body = text[i:end]
            for k, part in enumerate(body.split("\n")):
                comments.append((line + k, part))
            code.append("\n" * body.count("\n"))
            line += body.count("\n")
            i = end
        elif c == "/" and i + 1 < n and text[i + 1] == "/":
            end = text.find("\n", i)
            end = n if end < 0 else end
            comments.append((line, text[i:end]))
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            code.append(" ")
            i = j + 1
        else:
            if c == "\n":
                line += 1
            code.append(c)
            i += 1
    return "".join(code), comments


def walk(root, exts):
    """Files under root ending in one of exts, skipping VCS, node_modules,
    fuzz corpora and build trees (a directory holding CMakeCache.txt)."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS
                             and not os.path.exists(os.path.join(dirpath, d, "CMakeCache.txt")))
        for f in sorted(filenames):
            if f.endswith(exts):
                yield os.path.join(dirpath, f)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()


def known_names(src, build):
    names = set()
    code_files = []
    for d in MODULE_DIRS:
        if os.path.isdir(os.path.join(src, d)):
            code_files += walk(os.path.join(src, d), (".c", ".h"))
    if build:
        for d in (build, os.path.join(build, "proto")):
            if os.path.isdir(d):
                code_files += [os.path.join(d, f) for f in sorted(os.listdir(d))
                               if f.endswith((".c", ".h"))]
    for path in code_files:
        code, _ = split_c(read(path))
        # a name only tested by #if/#ifdef/#ifndef/#elif or #undef is not
        # thereby defined (the header guard's #define still counts)
        code = COND_LINE.sub("", code)
        names.update(IDENT.findall(code))
    for path in walk(os.path.join(src, "tests"), (".sh",)):
        for ln in read(path).split("\n"):
            if ln.lstrip().startswith("#"):
                continue
            for m in SH_DEF.finditer(ln):
                names.add(m.group(1) or m.group(2))
    return names


def mentions(text):
    """(column, token, is_file) of every mention in one line of text."""
    for m in MENTION.finditer(text):
        tok = m.group(1)
        is_file = bool(FILE_AFTER.match(text, m.end())) and "*" not in tok
        if is_file:
            tok += text[m.end():FILE_AFTER.match(text, m.end()).end()]
        yield m.start(), tok, is_file


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--src", default=os.path.normpath(os.path.join(here, "..", "..")))
    ap.add_argument("--build", default=None)
    args = ap.parse_args()
    src = os.path.abspath(args.src)

    names = known_names(src, args.build)
    file_names = set()
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        file_names.update(filenames)

    sources = []  # (path, [(line, text)])
    for path in walk(src, (".md",)):
        sources.append((path, list(enumerate(read(path).split("\n"), 1))))
    for path in walk(src, (".c", ".h")):
        sources.append((path, split_c(read(path))[1]))

    all_paths = set()
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = [d for d in dirnames if d not in (".git", "node_modules")
                       and not os.path.exists(os.path.join(dirpath, d, "CMakeCache.txt"))]
        rel_dir = os.path.relpath(dirpath, src)
        for f in dirnames + filenames:
            all_paths.add(os.path.normpath(os.path.join(rel_dir, f)))

    def path_ok(tok):
        if "NNN" in tok or tok.endswith("N"):
            return True  # a placeholder (migrations/sqlite/NNN_name.sql)
        tok = tok.rstrip("/.")
        if tok in all_paths:
            return True
        if "." not in os.path.basename(tok):  # a prefix: tests/unit/test_
            return any(p.startswith(tok) for p in all_paths)
        return False

    unknown = []
    checked = 0
    cache = {}
    for path, lines in sources:
        rel = os.path.relpath(path, src)
        for line, text in lines:
            for m in PATH.finditer(text):
                checked += 1
                if not path_ok(m.group(1)):
                    unknown.append((rel, line, m.group(1), "no such path"))
            for m in BARE_C.finditer(text):
                checked += 1
                if m.group(1) not in file_names and m.group(1) not in EXTERNAL_FILES:
                    unknown.append((rel, line, m.group(1), "no such file"))
            for _, tok, is_file in mentions(text):
                bare = tok.rstrip("_*")
                if bare.lower() in PREFIXES:
                    continue  # the module's prefix itself: `store_`, `srv_*`
                checked += 1
                if is_file:
                    if tok not in file_names:
                        unknown.append((rel, line, tok, "no such file"))
                    continue
                if tok not in cache:
                    if "*" in tok:
                        pat = tok.rstrip("_") if tok.endswith("_") else tok
                        cache[tok] = any(fnmatch.fnmatchcase(nm, pat) for nm in names)
                    else:
                        # a trailing _ in prose (`store_pg_`) is a prefix
                        cache[tok] = tok in names if not tok.endswith("_") \
                            else any(nm.startswith(tok) for nm in names)
                if not cache[tok]:
                    unknown.append((rel, line, tok, "not in the sources"))

    if unknown:
        print("docs.identifiers: %d name(s) in Markdown or C comments do not exist "
              "in matcher/ store/ web/ server/ (or the build):" % len(unknown))
        for rel, line, tok, why in unknown:
            print("%s:%d: %s (%s)" % (rel, line, tok, why))
        print("Rename the mention to the current name, or describe a name that does "
              "not exist in words (tests/docs/check_identifiers.py explains what counts).")
        return 1
    print("docs.identifiers: %d mentions in %d files, all exist" % (checked, len(sources)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
