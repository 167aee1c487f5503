#!/usr/bin/env python3
"""Normalises a /metrics exposition so it can be compared byte for byte.

Removes what legitimately differs between two scrapes of the same tree:
prometheus-cpp's own exposer_* families, collector durations and the time of
the last config load (set to 0), the build-specific labels of
fabric_exporter_build_info, and the values of the exporter's own process_*
series (its CPU time, memory, descriptors and start time are this process's,
not the tree's) and of fabric_collective_measurement_age_seconds (the age of a measurement
in a fixture file depends on the file's modification time, i.e. the checkout): each becomes a pattern, `<count>` for a whole number and
`<seconds>` for a time, and a value that is not a non-negative number of that
kind is kept as served, so the comparison fails on it. Everything else, order
included, is kept as served.

Usage: curl -s http://127.0.0.1:9877/metrics | tests/lib/fabric_testlib/normalize_exposition.py
"""
import re
import sys

_BUILD_LABELS = re.compile(r'(build_type|compiler|revision|version)="[^"]*"')
_DURATION = re.compile(r'^(fabric_[a-z0-9_]*duration_seconds(\{[^}]*\})?'
                       r'|fabric_exporter_config_last_reload_success_timestamp_seconds) \S+$')
_PROCESS = re.compile(r'^(process_[a-z_]+) (\S+)$')
_AGE = re.compile(r'^(fabric_collective_measurement_age_seconds\{[^}]*\}) (\S+)$')
_NUMBER = re.compile(r'^[0-9]+(\.[0-9]*)?(e[+-]?[0-9]+)?$')


def _process_pattern(name, value):
    """The pattern a process_* value stands for, or None when it is not one."""
    if not _NUMBER.match(value):
        return None
    if name.endswith('_seconds') or name.endswith('_seconds_total'):
        return '<seconds>'
    return '<count>' if float(value).is_integer() else None


def normalize(text: str) -> str:
    out = []
    for line in text.splitlines():
        fields = line.split(" ")
        name = fields[2] if line.startswith("# ") and len(fields) > 2 else line.split("{")[0].split(" ")[0]
        if name.startswith("exposer_"):
            continue
        if line.startswith("fabric_exporter_build_info"):
            line = _BUILD_LABELS.sub(lambda m: f'{m.group(1)}="normalized"', line)
        m = _DURATION.match(line)
        if m:
            line = m.group(1) + " 0"
        m = _AGE.match(line)
        if m and _NUMBER.match(m.group(2)):
            line = m.group(1) + " <seconds>"
        m = _PROCESS.match(line)
        if m:
            pattern = _process_pattern(m.group(1), m.group(2))
            if pattern:
                line = m.group(1) + " " + pattern
        out.append(line)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(normalize(sys.stdin.read()))
