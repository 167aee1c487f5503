#!/usr/bin/env python3
"""The documentation holds together inside the repository:

- every relative link in a Markdown file names a file that exists, and an
  anchor that the target's headings (GitHub's rule) or an <a id> define;
- no text file names a path outside the repository (the sibling shared
  folder, the machine's work directory, the old design and shapes files);
- every "shape N" in code, rules, dashboards and docs is one of the shapes of
  docs/bottleneck-shapes.md, which has the anchor shape-N for each;
- README.md stays short (the rest belongs in docs/).

Usage: docs_test.py [SOURCE_ROOT]   (default FABRIC_SOURCE_DIR or this
checkout); docs_test.py --self-test plants one problem of each kind in a
temporary tree and requires each to be reported. Exit 0 when clean, 1 with
one `file: ...` line per problem.
"""
import os
import re
import subprocess
import sys
import tempfile

README_MAX_LINES = 250
# Spelt in pieces so this file does not match itself.
OUTSIDE = re.compile("|".join([re.escape("../" + "shared"), re.escape("/wo" + "rk/"),
                               r"\bDESIGN" + r"\.md", r"BOTTLENECK_" + r"SHAPES"]))
SHAPE = re.compile(r"\bshapes? (\d+)", re.IGNORECASE)
LINK = re.compile(r"\]\(([^)\s]+)\)")
SKIP_DIRS = {".git", "build", "build-test", "build-asan", "build-fuzz", "build-package"}
TEXT_SUFFIXES = (".md", ".cc", ".h", ".py", ".txt", ".cmake", ".yml", ".yaml", ".json",
                 ".libsonnet", ".jsonnet", ".service", ".conf", "")


def repo_files(root):
    """Tracked and untracked-but-not-ignored files, or a walk without git."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard"],
                             check=True, capture_output=True, text=True).stdout
        files = [f for f in out.splitlines() if os.path.isfile(os.path.join(root, f))]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith("build")]
        for name in filenames:
            files.append(os.path.relpath(os.path.join(dirpath, name), root))
    return files


def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (UnicodeDecodeError, OSError):
        return None


def without_code_blocks(text):
    return re.sub(r"```.*?```", "", text, flags=re.S)


def anchors_of(text):
    """GitHub's heading slugs (lower case, punctuation dropped, spaces to '-',
    repeats numbered) and explicit <a id="...">."""
    found, seen = set(), {}
    for m in re.finditer(r"^#{1,6} (.*)$", without_code_blocks(text), re.M):
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    found.update(re.findall(r'<a id="([^"]+)"', text))
    return found


def check(root):
    problems = []
    files = repo_files(root)
    texts = {}
    for f in files:
        if f.endswith(TEXT_SUFFIXES) or "/" not in f or f.startswith(("scripts/", ".ci/")):
            text = read_text(os.path.join(root, f))
            if text is not None:
                texts[f] = text

    for f, text in sorted(texts.items()):
        if f == "tests/structure/docs_test.py":
            continue
        for lineno, line in enumerate(text.splitlines(), 1):
            m = OUTSIDE.search(line)
            if m:
                problems.append(f"{f}:{lineno}: names a path outside the repository: {m.group(0)}")

    shapes_doc = texts.get("docs/bottleneck-shapes.md")
    shape_anchors = anchors_of(shapes_doc) if shapes_doc else set()
    if shapes_doc is None:
        problems.append("docs/bottleneck-shapes.md: missing")
    for f, text in sorted(texts.items()):
        for lineno, line in enumerate(text.splitlines(), 1):
            for m in SHAPE.finditer(line):
                if f"shape-{int(m.group(1))}" not in shape_anchors:
                    problems.append(f"{f}:{lineno}: shape {m.group(1)} has no "
                                    "docs/bottleneck-shapes.md#shape-N anchor")

    anchor_cache = {}
    for f, text in sorted(texts.items()):
        if not f.endswith(".md"):
            continue
        for m in LINK.finditer(without_code_blocks(text)):
            link = m.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", link):  # http:, https:, mailto:
                continue
            path, _, anchor = link.partition("#")
            target = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            if target.startswith(".."):
                problems.append(f"{f}: link {link} leaves the repository")
                continue
            full = os.path.join(root, target)
            if not os.path.exists(full):
                problems.append(f"{f}: link {link}: {target} does not exist")
                continue
            if anchor and target.endswith(".md"):
                if target not in anchor_cache:
                    anchor_cache[target] = anchors_of(read_text(full) or "")
                if anchor not in anchor_cache[target]:
                    problems.append(f"{f}: link {link}: no anchor #{anchor} in {target}")

    readme = texts.get("README.md", "")
    if len(readme.splitlines()) > README_MAX_LINES:
        problems.append(f"README.md: {len(readme.splitlines())} lines, more than "
                        f"{README_MAX_LINES}: move the detail to docs/")
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(root, rel)) or root, exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        write("docs/bottleneck-shapes.md", '# Shapes\n\n<a id="shape-1"></a>\n\n## Shape 1: x\n')
        write("README.md", "# r\n\n[ok](docs/bottleneck-shapes.md#shape-1)\n")
        clean = check(root)
        if clean:
            print("self-test: a clean tree was reported:", *clean, sep="\n  ")
            return 1
        planted = {
            "docs/a.md": ("[gone](missing.md)\n", "does not exist"),
            "docs/b.md": ("[x](bottleneck-shapes.md#shape-9)\n", "no anchor #shape-9"),
            "common/c.h": ("// see " + "../" + "shared/notes\n", "outside the repository"),
            "rules/d.libsonnet": ("// sha" "pe 16\n", " 16 has no"),
        }
        for rel, (text, _) in planted.items():
            write(rel, text)
        write("README.md", "# r\n" + "line\n" * README_MAX_LINES)
        problems = "\n".join(check(root))
        failed = 0
        for rel, (_, expect) in planted.items():
            if not any(rel in p and expect in p for p in problems.splitlines()):
                print(f"self-test: planted {rel} ({expect}) not reported")
                failed = 1
        if "README.md:" not in problems:
            print("self-test: a long README was not reported")
            failed = 1
        print("self-test:", "ok" if not failed else "FAILED")
        return failed


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = (sys.argv[1] if len(sys.argv) > 1 else os.environ.get("FABRIC_SOURCE_DIR")
            or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    problems = check(root)
    for p in problems:
        print(p)
    if not problems:
        print("docs: links, anchors, shape references and outside paths clean")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
