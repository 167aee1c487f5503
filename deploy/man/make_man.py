#!/usr/bin/env python3
"""Writes a binary's man page (roff, section 1) from its own --help, so the page cannot drift from
the flags the binary has. The build runs this on the built binary (deploy/CMakeLists.txt) and
tests/deploy/man_pages_test.py checks that every flag of --help is in the page.

  make_man.py BINARY --version 0.1.0 --date 2025-01-31 --output fabric_exporter.1

A binary whose --help lists "Commands:" gets a COMMANDS section with each command's own --help
(`BINARY COMMAND --help`). NAME's one-line summary, FILES and SEE ALSO are not in --help: they
are the PAGES table below.
"""
import argparse
import os
import re
import subprocess
import sys

# What --help does not say. Paths are those the package installs (deploy/README.md).
PAGES = {
    "fabric_exporter": {
        "summary": "Prometheus exporter for the capacity ladder of RDMA/RoCE/TCP fabrics",
        "files": [
            ("/etc/fabric-ladder/fabric_exporter.yml",
             "The configuration fabric-exporter.service starts with (a conffile of the package)."),
            ("/etc/fabric-ladder/probe.secret",
             "The shared secret of the probes and responders (mode 0600, owner fabric-ladder)."),
            ("/usr/share/fabric-ladder/examples/",
             "Example configurations: the exporter's, a web config (TLS, basic auth), Prometheus "
             "and Alertmanager."),
            ("/usr/share/fabric-ladder/rules/fabric-ladder.rules.yml",
             "The Prometheus recording and alerting rules."),
            ("/usr/share/fabric-ladder/dashboards/", "The Grafana dashboards."),
            ("/lib/systemd/system/fabric-exporter.service",
             "The systemd unit (neither enabled nor started by the package)."),
        ],
        "see_also": ["fabric_probe(1)", "systemd-sysusers(8)", "prometheus(1)"],
    },
    "fabric_probe": {
        "summary": "measure one layer of the fabric ladder at a time",
        "files": [
            ("/etc/fabric-ladder/probe.secret",
             "The shared secret of the probes and responders, for --secret-file."),
        ],
        "see_also": ["fabric_exporter(1)"],
    },
}

OPTION = re.compile(r"^ {2}(-\S+)(?: {2,}(\S.*))?$")
COMMAND = re.compile(r"^ {2}([a-z][\w-]*) {2,}(\S.*)$")
CONTINUATION = re.compile(r"^ {4,}(\S.*)$")


def run_help(argv):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    text = r.stdout or r.stderr
    if "Usage:" not in text:
        sys.exit(f"make_man.py: {' '.join(argv)} printed no usage (exit {r.returncode})")
    return text


def parse_help(text):
    """--help text -> {usage, paragraphs, options [(name, desc)], commands [(name, desc)]}."""
    out = {"usage": "", "paragraphs": [], "options": [], "commands": []}
    section = None  # "Flags:", "Commands:" or None (free text)
    paragraph = []
    last = None  # The list entry a continuation line extends.

    def end_paragraph():
        if paragraph:
            out["paragraphs"].append(list(paragraph))
            paragraph.clear()

    for line in text.splitlines():
        if line.startswith("Usage: "):
            out["usage"] = line[len("Usage: "):].strip()
            continue
        if not line.strip():
            end_paragraph()
            last = None
            continue
        if re.fullmatch(r"[A-Z][\w ]*:", line):
            end_paragraph()
            section, last = line, None
            continue
        m = OPTION.match(line)
        if m:
            end_paragraph()
            last = [m.group(1), m.group(2) or ""]
            out["options"].append(last)
            continue
        m = COMMAND.match(line) if section == "Commands:" else None
        if m:
            last = [m.group(1), m.group(2)]
            out["commands"].append(last)
            continue
        m = CONTINUATION.match(line)
        if m and last is not None:
            last[1] = (last[1] + " " + m.group(1)).strip()
            continue
        section = None
        paragraph.append(line.strip())
    end_paragraph()
    return out


def escape(text):
    """Plain text -> roff: backslashes, leading dashes of flags, `code` in bold."""
    text = text.replace("\\", "\\e")
    # A flag's dashes are minus signs (typed as such); a hyphen in a word stays a hyphen.
    text = re.sub(r"(?<![\w-])--?[\w\[][^\s,;)`]*", lambda m: m.group(0).replace("-", "\\-"),
                  text)
    text = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", text)
    return text


def line(text):
    """One roff text line: a leading . or ' would be read as a request."""
    text = escape(text)
    return "\\&" + text if text[:1] in (".", "'") else text


def option_name(name):
    flag, eq, arg = name.partition("=")
    out = "\\fB" + escape(flag) + "\\fR"
    return out + ("=\\fI" + escape(arg) + "\\fR" if eq else "")


def synopsis(program, usage):
    rest = usage[len(program):].strip() if usage.startswith(program) else usage
    return [".B " + program] + ([line(rest)] if rest else [])


def body(parsed, heading=None):
    roff = []
    for paragraph in parsed["paragraphs"]:
        roff.append(".PP")
        roff.extend(line(text) for text in paragraph)
    if parsed["options"] and heading:
        roff.append(heading)
    if parsed["options"]:
        for name, desc in parsed["options"]:
            roff += [".TP", option_name(name), line(desc)]
    return roff


def make_page(binary, version, date):
    program = os.path.basename(binary)
    extra = PAGES[program]
    top = parse_help(run_help([binary, "--help"]))
    roff = [f'.\\" Generated by deploy/man/make_man.py from `{program} --help`: do not edit.',
            f'.TH {program.upper()} 1 "{date}" "fabric-ladder {version}" '
            '"User Commands"',
            ".SH NAME", f"{program} \\- {escape(extra['summary'])}",
            ".SH SYNOPSIS", *synopsis(program, top["usage"]),
            ".SH DESCRIPTION", *body(top, ".SH OPTIONS")]
    if top["commands"]:
        roff.append(".SH COMMANDS")
        for name, desc in top["commands"]:
            sub = parse_help(run_help([binary, name, "--help"]))
            roff += [f'.SS "{name}"', line(desc[:1].upper() + desc[1:] + "."), ".PP",
                     *synopsis(program, sub["usage"]), *body(sub)]
    roff.append(".SH FILES")
    for path, desc in extra["files"]:
        roff += [".TP", "\\fI" + escape(path) + "\\fR", line(desc)]
    roff += [".SH SEE ALSO", ",\n".join(
        "\\fB" + ref.replace("(", "\\fR(") for ref in extra["see_also"])]
    return "\n".join(roff) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--version", required=True)
    ap.add_argument("--date", required=True)
    ap.add_argument("--output", required=True)
    args = ap.parse_args()
    page = make_page(args.binary, args.version, args.date)
    with open(args.output + ".tmp", "w") as f:
        f.write(page)
    os.replace(args.output + ".tmp", args.output)


if __name__ == "__main__":
    main()
