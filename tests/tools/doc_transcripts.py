#!/usr/bin/env python3
"""Runs the terminal transcripts of attnlab's pages and compares them with what the program prints.

A transcript is a fenced block whose info string is `console`:

    ```console
    $ attnlab run experiments/bahdanau-reverse.yaml --threads 2
    ...
    results: bahdanau-reverse.h5  (attnlab compare bahdanau-reverse.h5 --metrics all: every metric)
    ```

- A line that starts with `$ ` is a command (a line ending in `\\` continues it); the lines up to
  the next command are what it prints, standard output and standard error together.
- The marks for what may differ from run to run (times, paths), kept visible and few:
  a line `...` stands for any number of lines; `...` inside a line stands for any text. A line
  of dashes (a table's rule) matches a rule of any length, since a column of times changes the
  table's width.
- A command that exits with a code other than 0 ends its output with the line `[exit N]`.

Numbers are compared exactly on a machine whose arithmetic is the pages' own: the one named in
docs/transcripts-made-on.txt (the second line of `attnlab --version` where they were written:
its SIMD target and OpenBLAS kernel, which decide the last bits of every float, and so of a
training run's numbers). On another machine a line matches when only its numbers and the spaces
and dashes between and under columns differ; the report counts those lines. Its words, its columns, its runs and the
lines a command prints are still checked.

The commands of one page run in order in one scratch directory, which holds links to the
repository's experiments/, datasets/, plugins/, tests/ and docs/, `build` (the build directory
under test) and `attnlab` on the PATH: a page reads as a session started in a fresh clone.

    doc_transcripts.py --build BUILD [--update] [--made-on FILE] PAGE...

`--update` writes what the program printed into the pages (keeping a block whose marks match):
the committed way a page's numbers get there; pages are updated only on the machine of
docs/transcripts-made-on.txt (or after writing this machine's line there and checking every
page again). Exit code 0 when every transcript matches, 1 when
one differs (each difference shown), 2 for bad arguments.
"""
import argparse
import difflib
import functools
import os
import re
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINKED = ["experiments", "datasets", "plugins", "tests", "docs", "bench", "meson.build"]
FENCE = re.compile(r"^(\s*)```console\s*$")


class Block:
    """One transcript: its place in the page and its commands with their expected output."""

    def __init__(self, start, end, indent, steps):
        self.start, self.end, self.indent, self.steps = start, end, indent, steps


def read_blocks(lines):
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, j, steps = m.group(1), i + 1, []
        while j < len(lines) and lines[j].strip() != "```":
            line = lines[j][len(indent):]
            if line.startswith("$ "):
                command = line[2:]
                while command.endswith("\\") and j + 1 < len(lines):
                    j += 1
                    command += "\n" + lines[j][len(indent):]  # bash reads `\` + newline as one line
                steps.append((command, []))
            elif steps:
                steps[-1][1].append(line)
            j += 1
        blocks.append(Block(i, j, indent, steps))
        i = j + 1
    return blocks


def prompts_outside_transcripts(lines):
    """The line numbers of `$ ` commands in fenced blocks that are not transcripts (never run)."""
    found, fence = [], None
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = None if fence is not None else stripped[3:].strip()
        elif fence is not None and fence != "console" and stripped.startswith("$ "):
            found.append(number)
    return found


NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?")
ANY_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+|nan|inf)(?:e[-+]?\d+)?"
FREE = re.compile(r"-{3,}| +|" + NUMBER.pattern)


def literal(text, loose):
    """A regular expression for text as it is or, loose, with any number for each number, and any
    run of spaces or of dashes for each (a table's column widths follow its numbers)."""
    if not loose:
        return re.escape(text)
    out, at = [], 0
    for m in FREE.finditer(text):
        free = ANY_NUMBER if NUMBER.fullmatch(m.group()) else " +" if m.group()[0] == " " else "-{3,}"
        out += [re.escape(text[at:m.start()]), free]
        at = m.end()
    out.append(re.escape(text[at:]))
    return "".join(out)


def line_pattern(expected, loose=False):
    if re.fullmatch(r"-{3,}(\.\.\.)?", expected):  # a table's rule: as long as the table, whose times vary
        return re.compile(r"^-{3,}$")
    return re.compile("^" + ".*?".join(literal(part, loose) for part in expected.split("...")) + "$")


def exit_line(lines):
    return lines[-1] if lines and re.fullmatch(r"\[exit \d+\]", lines[-1]) else None


def matches(expected, actual, loose=False):
    """Whether the actual lines match the expected ones, marks included (a line `...`: any lines;
    never the `[exit N]` line, which the page must show as it is); loose: numbers and the spaces
    between columns aside."""
    if exit_line(expected) != exit_line(actual):
        return False
    if exit_line(actual):
        expected, actual = expected[:-1], actual[:-1]
    patterns = [None if e == "..." else line_pattern(e, loose) for e in expected]

    @functools.lru_cache(maxsize=None)
    def from_(i, k):
        if i == len(patterns):
            return k == len(actual)
        if patterns[i] is None:
            return any(from_(i + 1, j) for j in range(k, len(actual) + 1))
        return k < len(actual) and bool(patterns[i].match(actual[k])) and from_(i + 1, k + 1)

    return from_(0, 0)


def scratch_directory(build):
    scratch = tempfile.mkdtemp(prefix="attnlab-docs-")
    for name in LINKED:
        os.symlink(os.path.join(REPO, name), os.path.join(scratch, name))
    os.symlink(os.path.abspath(build), os.path.join(scratch, "build"))
    os.makedirs(os.path.join(scratch, ".bin"))
    os.symlink(os.path.join(os.path.abspath(build), "attnlab"), os.path.join(scratch, ".bin", "attnlab"))
    return scratch


def run(command, scratch, timeout):
    env = dict(os.environ, PATH=os.path.join(scratch, ".bin") + ":" + os.environ["PATH"], LC_ALL="C.UTF-8",
               COLUMNS="100", HOME=scratch)
    env.pop("ATTNLAB_THREADS", None)
    try:
        done = subprocess.run(["bash", "-c", command], cwd=scratch, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [f"[timed out after {timeout} s]"]
    out = done.stdout.decode("utf-8", "replace").splitlines()
    return out + ([f"[exit {done.returncode}]"] if done.returncode else [])


def arithmetic(signature):
    """What decides the floats in a build signature: all but its leading "plugin API N; "."""
    return re.sub(r"^plugin API \d+; ", "", signature.strip())


def pages_arithmetic_here(build, made_on_file):
    """Whether this build computes with the arithmetic the pages' numbers were made with."""
    with open(made_on_file, encoding="utf-8") as f:
        made_on = f.readline()
    version = subprocess.run([os.path.join(build, "attnlab"), "--version"], stdout=subprocess.PIPE, check=True)
    here = version.stdout.decode().splitlines()[1]
    return arithmetic(made_on) == arithmetic(here), here


def check_page(page, build, update, timeout, exact):
    with open(page, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks = read_blocks(lines)
    failures, replaced = 0, {}
    for number in prompts_outside_transcripts(lines):
        failures += 1
        print(f"{page}:{number}: a command with a prompt outside a console block: make the block a transcript")
    scratch = scratch_directory(build)
    for block in blocks:
        actual_steps = []
        for command, expected in block.steps:
            began = time.time()
            actual = run(command, scratch, timeout)
            print(f"  {time.time() - began:6.1f} s  $ {command.splitlines()[0][:90]}", flush=True)
            actual_steps.append((command, actual))
            if not matches(expected, actual):
                if not exact and matches(expected, actual, loose=True):
                    print(f"{page}:{block.start + 1}: `{command.splitlines()[0][:60]}`: other numbers (this machine's arithmetic)")
                    continue
                failures += 1
                print(f"{page}:{block.start + 1}: `{command}` printed other lines than the page shows:")
                sys.stdout.writelines(difflib.unified_diff([e + "\n" for e in expected], [a + "\n" for a in actual],
                                                           "the page", "attnlab", n=2))
                replaced[block.start] = True
        if update and replaced.get(block.start):
            body = []
            for command, actual in actual_steps:
                body += ["$ " + command] + actual
            replaced[block.start] = [block.indent + l if l else l for l in "\n".join(body).split("\n")]
    subprocess.run(["rm", "-rf", scratch])
    if update and any(isinstance(v, list) for v in replaced.values()):
        for block in reversed(blocks):
            if isinstance(replaced.get(block.start), list):
                lines[block.start + 1:block.end] = replaced[block.start]
        with open(page, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        print(f"{page}: updated")
    return failures


def main():
    parser = argparse.ArgumentParser(description="Check (or --update) the console transcripts of attnlab's pages.")
    parser.add_argument("--build", required=True, help="the build directory whose attnlab runs the commands")
    parser.add_argument("--update", action="store_true", help="write what the program printed into the pages")
    parser.add_argument("--timeout", type=int, default=900, help="seconds one command may take")
    parser.add_argument("--made-on", default=os.path.join(REPO, "docs", "transcripts-made-on.txt"),
                        help="the file naming the machine the pages' numbers were made on")
    parser.add_argument("pages", nargs="+")
    a = parser.parse_args()
    if not os.path.exists(os.path.join(a.build, "attnlab")):
        parser.error(f"{a.build}/attnlab does not exist: build attnlab first")
    exact, here = pages_arithmetic_here(a.build, a.made_on)
    if not exact:
        print(f"this machine ({here}) is not the one the pages' numbers were made on "
              "(docs/transcripts-made-on.txt): numbers are not compared, everything else is")
    failures = 0
    for page in a.pages:
        print(f"== {page}", flush=True)
        failures += check_page(page, a.build, a.update, a.timeout, exact)
    print(f"{failures} transcript{'s' if failures != 1 else ''} differ{'s' if failures == 1 else ''} from the program")
    return 1 if failures and not a.update else 0


if __name__ == "__main__":
    sys.exit(main())
