#!/usr/bin/env python3
"""No C++ source in common/, active-probes/ or exporter/ classifies an error by
its text: an Error carries an ErrorCode set where it is made
(common/error_code.h) and the one table in active-probes/probe/error_kinds.cc
says what a code means; messages are free text for people. This fails on the
shapes that classification takes: StartsWith/EndsWith/Contains on a message or
an error, .find(/.starts_with(/.compare( on a message, a message compared to a
string literal, and a search of strerror() text.

Usage: error_text_test.py [SOURCE_ROOT]   (default: FABRIC_SOURCE_DIR or this
checkout). Exit 0 when clean; 1 with one `file:line: ...` per finding.
"""
import os
import re
import sys

TREES = ("common", "active-probes", "exporter")
SOURCE_SUFFIXES = (".cc", ".h")

# What names an error's text in an expression: error().message, err.message,
# status.error().message, a variable called message/detail/what.
TEXT = r"(?:\berror\(\)\.message\b|\.message\b|\bmessage\b|\berr(?:or)?_?(?:text|message)\b|\bdetail\b)"
KIND_WORDS = ("refused|unreachable|timeout|busy|auth|rejected|aborted|closed|interrupted|"
              "no-device|no-port|no-active-port|no-route|no-space|ENOSPC")
PATTERNS = [
    (re.compile(r"\b(?:StartsWith|EndsWith|Contains)\s*\([^;]*?" + TEXT),
     "a prefix/suffix/substring test of an error's message"),
    (re.compile(TEXT + r"(?:\(\))?\s*\.\s*(?:find|rfind|find_first_of|starts_with|ends_with|"
                r"compare|substr)\s*\("),
     "a search in an error's message"),
    (re.compile(TEXT + r"\s*(?:==|!=)\s*(?:std::string(?:_view)?\s*\(\s*)?\""),
     "an error's message compared to a literal"),
    (re.compile(r"\"\s*(?:==|!=)\s*[\w.()>\-]*" + TEXT),
     "a literal compared to an error's message"),
    # Through an alias (const std::string& m = e.message): a test for one of
    # the prefixes the probes wrote before they had codes.
    (re.compile(r"\b(?:StartsWith|EndsWith|Contains|starts_with|find)\s*\([^;]*\"(?:" + KIND_WORDS +
                r")\b"),
     "a test for an error kind's word"),
    (re.compile(r"(?:==|!=)\s*\"(?:" + KIND_WORDS + r")[:\"]"),
     "a string compared to an error kind's word"),
    (re.compile(r"\b(?:strstr|strncmp|StartsWith|find)\s*\([^;]*\bstrerror\s*\("),
     "a search of strerror() text"),
    (re.compile(r"\bstrerror\s*\([^;]*\)\s*(?:==|!=)|(?:==|!=)\s*(?:std::string\s*\()?\s*strerror\s*\("),
     "strerror() text compared"),
]


def strip_comments(line, in_block):
    """The code of a line without // and /* */ comments (string literals are
    kept: the literal a message is compared with is the point)."""
    out = []
    i = 0
    while i < len(line):
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i = end + 2
            in_block = False
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            in_block = True
            i += 2
            continue
        if line[i] == '"':
            j = i + 1
            while j < len(line) and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            out.append(line[i:j + 1])
            i = j + 1
            continue
        out.append(line[i])
        i += 1
    return "".join(out), in_block


def check(root):
    findings = []
    for tree in TREES:
        for dirpath, _, files in os.walk(os.path.join(root, tree)):
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                in_block = False
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        code, in_block = strip_comments(line, in_block)
                        for pattern, what in PATTERNS:
                            if pattern.search(code):
                                findings.append(f"{rel}:{number}: {what}: {code.strip()}")
                                break
    return findings


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
        "FABRIC_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    findings = check(root)
    for f in findings:
        print(f)
    if findings:
        print(f"{len(findings)} error(s) classified by their text: set an ErrorCode where the "
              "error is made and read error.code (common/error_code.h)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
