#!/usr/bin/python3
"""Lists C++ functions longer than a limit (the project's rule: no function in framework/ over 80 lines).

    function_lengths.py LIMIT FILE_OR_DIR...

Prints `file:line: N lines: <signature tail>` for every function body (lambdas inside count
with their function) longer than LIMIT lines, and exits 1 when there is one. A function may be
longer only with a comment `// long-function: <why>` on one of the three lines above it (a SIMD
kernel that reads worse split). Comments and string literals are ignored; namespaces, classes
and extern "C" blocks are scopes, not functions.
"""
import pathlib
import re
import sys


def without_comments_and_strings(src):
    """The text with comments and literals blanked (newlines kept, so line numbers hold)."""
    out, i, n = [], 0, len(src)
    while i < n:
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * src.count("\n", i, j))
            i = j
        elif (m := re.match(r'R"([^(\s]*)\(', src[i:i + 20])):
            end = src.find(")" + m.group(1) + '"', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + "\n" * src.count("\n", i, end))
            i = end
        elif src[i] in "\"'":
            quote, j = src[i], i + 1
            while j < n and src[j] != quote:
                j += 2 if src[j] == "\\" else 1
            out.append(quote * 2)
            i = j + 1
        else:
            out.append(src[i])
            i += 1
    return "".join(out)


SCOPE = re.compile(r'\b(namespace|class|struct|union|enum)\b[^()]*$|extern\s*""$')
FUNCTION = re.compile(r'\)\s*(const|noexcept|override|final|mutable|->\s*[\w:<>,\s*&]+|\s)*$|\)\s*:.*$', re.S)


def long_functions(path, limit):
    text = path.read_text(errors="replace")
    lines = text.splitlines()
    stack, head, line = [], "", 1  # stack: (kind, first line, signature)
    for ch in without_comments_and_strings(text):
        if ch == "\n":
            line += 1
        if ch == "{":
            sig = head.lstrip()  # the signature, from its first line to the brace
            if any(kind == "function" for kind, _, _ in stack):
                kind = "block"
            elif SCOPE.search(sig):
                kind = "scope"
            else:
                kind = "function" if FUNCTION.search(sig) else "block"
            stack.append((kind, line, sig))
            head = ""
        elif ch == "}":
            if stack:
                kind, first, sig = stack.pop()
                length = line - first + 1
                if kind == "function" and length > limit:
                    sig_line = first - sig.count("\n")
                    above = lines[max(0, sig_line - 4):sig_line - 1]
                    if not any("long-function:" in l for l in above):
                        yield sig_line, length, " ".join(sig.split())[-70:]
            head = ""
        elif ch == ";":
            head = ""
        else:
            head += ch


def main(argv):
    limit, found = int(argv[1]), 0
    for root in argv[2:]:
        root = pathlib.Path(root)
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.suffix in (".cpp", ".hpp"))
        for path in files:
            for first, length, sig in long_functions(path, limit):
                print(f"{path}:{first}: {length} lines: {sig}")
                found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
