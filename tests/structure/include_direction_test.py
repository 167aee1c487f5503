#!/usr/bin/env python3
"""Every #include "..." in common/, active-probes/ and exporter/ points down a
layer: the including file's folder may include its own folder and the folders
ALLOWED names for it (copied from the layout plan, issue 20). An include of a
folder the table does not know, or a source file in such a folder, fails too,
so a new folder has to be placed in the table before it can be used.

Usage: include_direction_test.py [SOURCE_ROOT]   (default: FABRIC_SOURCE_DIR or
this checkout). Exit 0 when clean; 1 with one `file:line: ...` per violation.
"""
import os
import re
import sys

TREES = ("common", "active-probes", "exporter")

COMMON = ["common", "common/parse", "common/read", "common/kernel"]
ACTIVE_PROBES = ["active-probes/probe", "active-probes/control", "active-probes/tcp",
                 "active-probes/responder", "active-probes/rdma", "active-probes/storage",
                 "active-probes/path", "active-probes/cli"]
EXPORTER = ["exporter/config", "exporter/metrics", "exporter/http", "exporter/backends",
            "exporter/pcie", "exporter/collectors", "exporter/path_mesh", "exporter/scheduled_probes",
            "exporter/ladder", "exporter/pages", "exporter/app", "exporter/probe_cli"]

# folder -> folders it may include besides itself. "common*" is COMMON,
# "active-probes/*" and "exporter/*" every folder of that tree.
ALLOWED = {
    "common": [],
    "common/parse": ["common"],
    "common/read": ["common"],
    "common/kernel": ["common", "common/parse", "common/read"],
    "active-probes/probe": COMMON,
    "active-probes/control": COMMON + ["active-probes/probe"],
    "active-probes/tcp": COMMON + ["active-probes/probe", "active-probes/control"],
    "active-probes/responder": COMMON + ["active-probes/probe", "active-probes/control",
                                         "active-probes/tcp"],
    "active-probes/rdma": COMMON + ["active-probes/probe", "active-probes/control",
                                    "active-probes/tcp", "active-probes/responder"],
    "active-probes/storage": COMMON + ["active-probes/probe"],
    "active-probes/path": COMMON + ["active-probes/probe"],
    "active-probes/cli": COMMON + ACTIVE_PROBES,
    "exporter/config": COMMON,
    "exporter/metrics": COMMON + ["exporter/config"],
    "exporter/http": COMMON + ["exporter/config", "exporter/metrics"],
    "exporter/backends": COMMON,
    "exporter/pcie": COMMON + ["exporter/backends"],
    "exporter/collectors": COMMON + ["exporter/config", "exporter/metrics", "exporter/backends",
                                     "exporter/pcie"],
    "exporter/path_mesh": COMMON + ACTIVE_PROBES + ["exporter/config", "exporter/metrics"],
    "exporter/scheduled_probes": COMMON + ACTIVE_PROBES + ["exporter/config", "exporter/metrics",
                                                           "exporter/path_mesh"],
    "exporter/ladder": COMMON + ["active-probes/probe", "exporter/config", "exporter/metrics",
                                 "exporter/scheduled_probes"],
    "exporter/pages": COMMON + ["exporter/config", "exporter/metrics", "exporter/http",
                                "exporter/ladder", "exporter/scheduled_probes"],
    "exporter/app": COMMON + ACTIVE_PROBES + EXPORTER,
    "exporter/probe_cli": COMMON + ACTIVE_PROBES + EXPORTER,
}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SOURCE_SUFFIXES = (".cc", ".h", ".h.in")


def sources(root):
    for tree in TREES:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, tree)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    path = os.path.join(dirpath, name)
                    yield os.path.relpath(path, root).replace(os.sep, "/")


def violations(root):
    """One `file:line: why` string per include against the table."""
    out = []
    for rel in sources(root):
        folder = os.path.dirname(rel)
        if folder not in ALLOWED:
            out.append(f"{rel}:1: folder {folder}/ is not in the include-direction table "
                       "(tests/structure/include_direction_test.py ALLOWED)")
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = os.path.dirname(m.group(1))
                if target not in ALLOWED:
                    out.append(f'{rel}:{number}: #include "{m.group(1)}" names folder '
                               f"{target or '(none)'}/, which is not in the include-direction "
                               "table")
                elif target != folder and target not in ALLOWED[folder]:
                    out.append(f'{rel}:{number}: #include "{m.group(1)}": {folder}/ may not '
                               f"include {target}/ (it may include: "
                               f"{', '.join(ALLOWED[folder]) or 'nothing'})")
    return out


def main(argv):
    root = argv[1] if len(argv) > 1 else os.environ.get(
        "FABRIC_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    count = sum(1 for _ in sources(root))
    if count == 0:
        print(f"include_direction: no sources under {root}")
        return 1
    found = violations(root)
    for v in found:
        print(v)
    if found:
        print(f"include_direction: {len(found)} include(s) against the allowed direction")
        return 1
    print(f"include_direction: {count} files, every include points down a layer")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
