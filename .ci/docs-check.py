#!/usr/bin/env python3
"""Keeps the documentation a reference: fails (exit 1) when

- README.md is longer than its budget (180 lines), or Docs/Performance.md than its own (250);
- the results table of Docs/Performance.md differs from Benchmarks/results/latest.json
  (Benchmarks/results/table.py --check);
- README.md, CONTRIBUTING.md, Docs/*.md, the DocC articles or the doc comments (`///` lines)
  in Sources/ mention a tracker entry ("issue" and a number, or a bare "#" and a number), head a
  section with "pass" or "round" (or number them: "round 3"), or quote a commit hash.

History belongs in commit messages and CHANGELOG.md, which is not checked. Python 3 standard
library only; run from anywhere: python3 .ci/docs-check.py
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
README_BUDGET = 180
PERFORMANCE_BUDGET = 250

# "issue 16", "issues 13 and 14", "issue #7", and branch-style "issue16-core".
ISSUE = re.compile(r"\bissues?[ \t]*#?[ \t]*\d+", re.IGNORECASE)
# A bare "#12". Not "owner/repo#12" (a reference to another project's tracker, preceded by a
# word character), "&#12;" (an HTML entity) or Swift's "#if"/"#expect" (no digit).
HASH_NUMBER = re.compile(r"(?<![\w&#/])#\d+\b")
# Seven to forty lower-case hex digits with at least one digit and one letter, standing alone:
# not "0x7f…" (preceded by "x"), not a word such as "defaced" (no digit), not a plain number.
COMMIT = re.compile(r"(?<![\w./\\-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w-])")
# A heading: Markdown's "#" lines, also inside a doc comment ("/// ## …").
HEADING = re.compile(r"^\s*#{1,6}\s")
# "pass" or "round" as a word in a heading ("Fifth pass", "Round 2"), not "passes", "bypass",
# "round trip" or "round-trip".
HEADING_WORD = re.compile(r"\b(pass|round)\b(?![ -]trip)", re.IGNORECASE)
# Numbered passes and rounds anywhere: "round 3", "pass 2".
NUMBERED = re.compile(r"\b(pass|round)[ \t]+\d+\b", re.IGNORECASE)


def documents():
    """(path, lines) of every checked text: Markdown whole, Swift sources' `///` lines only."""
    paths = [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    paths += sorted((ROOT / "Docs").glob("*.md"))
    paths += sorted((ROOT / "Sources").glob("**/*.docc/**/*.md"))
    for path in paths:
        if path.exists():
            yield path, [(number, line) for number, line in enumerate(path.read_text().splitlines(), 1)]
    for path in sorted((ROOT / "Sources").glob("**/*.swift")):
        lines = []
        for number, line in enumerate(path.read_text().splitlines(), 1):
            stripped = line.lstrip()
            if stripped.startswith("///"):
                lines.append((number, stripped[3:]))
        if lines:
            yield path, lines


def problems_in(lines):
    fenced = False
    for number, line in lines:
        if line.lstrip().startswith("```"):
            fenced = not fenced
        for pattern, reason in ((ISSUE, "names a tracker issue"), (HASH_NUMBER, "names a tracker issue"),
                                (COMMIT, "quotes a commit hash"), (NUMBERED, "numbers a pass or round")):
            match = pattern.search(line)
            if match:
                yield number, f"{reason} ({match.group(0)!r})"
        if not fenced and HEADING.match(line):
            match = HEADING_WORD.search(line)
            if match:
                yield number, f"a heading about a {match.group(1).lower()} ({line.strip()!r})"


# The patterns' own check, run first: what they must flag, and legitimate words they must not.
FLAGGED = ["### Fifth pass: less work", "## Round 2", "in round 3 we", "see issue 16", "issues 13 and 14",
           "issue16-core", "fixed in #12", "at 1b996dc", "`a1b2c3d`", " ## Second pass"]
NOT_FLAGGED = ["the test passes", "a round trip", "round-trip", "## Round trip", "bypass the cache",
               "the first pass over the body", "18 rounds of 900", "swiftlang/swift#57803", "&#12;",
               "#if canImport(FoundationNetworking)", "0x7f3a9b2c", "deadbeef", "1234567",
               "```sh\n# how to pass the flag\n```"]


def self_test():
    wrong = [text for text in FLAGGED if not list(problems_in([(1, line) for line in text.split("\n")]))]
    wrong += [text for text in NOT_FLAGGED
              if list(problems_in([(n, line) for n, line in enumerate(text.split("\n"), 1)]))]
    return [f"the check's own patterns misjudge {text!r}" for text in wrong]


def main():
    failures = self_test()

    readme_lines = len((ROOT / "README.md").read_text().splitlines())
    if readme_lines > README_BUDGET:
        failures.append(f"README.md: {readme_lines} lines, over its budget of {README_BUDGET}")
    performance_lines = len((ROOT / "Docs" / "Performance.md").read_text().splitlines())
    if performance_lines > PERFORMANCE_BUDGET:
        failures.append(f"Docs/Performance.md: {performance_lines} lines, over its budget of {PERFORMANCE_BUDGET}")

    for path, lines in documents():
        for number, reason in problems_in(lines):
            failures.append(f"{path.relative_to(ROOT)}:{number}: {reason}")

    table = subprocess.run([sys.executable, str(ROOT / "Benchmarks" / "results" / "table.py"), "--check"],
                           capture_output=True, text=True)
    if table.returncode != 0:
        failures.append(table.stdout.strip() or table.stderr.strip())

    if failures:
        print("The documentation check failed (history goes in commit messages and CHANGELOG.md):")
        print("\n".join(f"  {failure}" for failure in failures))
        return 1
    print(f"Documentation check passed: README.md {readme_lines} of {README_BUDGET} lines, "
          f"Docs/Performance.md {performance_lines} of {PERFORMANCE_BUDGET}, "
          "the Performance table matches latest.json, no history in the references.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
