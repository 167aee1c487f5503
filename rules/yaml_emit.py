#!/usr/bin/env python3
"""Writes the JSON jsonnet produces (stdin) as block YAML (stdout): mappings in
the mixin's key order, multi-line strings (PromQL) as literal blocks, other
strings JSON-quoted (valid YAML). jsonnet's own std.manifestYamlDoc is
pure-jsonnet and takes ~20 s on this bundle; this takes milliseconds."""
import json
import sys

ORDER = ['name', 'interval', 'rules', 'record', 'alert', 'expr', 'for', 'labels', 'annotations',
         'summary', 'description', 'runbook_url']


def key_order(d):
    return sorted(d, key=lambda k: (ORDER.index(k) if k in ORDER else len(ORDER), k))


def scalar(v, indent):
    if isinstance(v, str):
        if '\n' in v.rstrip('\n') or (v.endswith('\n') and v.count('\n') >= 1):
            body = v if v.endswith('\n') else v + '\n'
            chomp = '' if v.endswith('\n') else '-'
            pad = ' ' * (indent + 2)
            return '|' + chomp + '\n' + ''.join(pad + line + '\n' if line else '\n'
                                                for line in body[:-1].split('\n'))
        return json.dumps(v, ensure_ascii=False) + '\n'
    if isinstance(v, bool):
        return ('true' if v else 'false') + '\n'
    if v is None:
        return 'null\n'
    if isinstance(v, float) and v.is_integer():
        return str(int(v)) + '\n'
    return json.dumps(v) + '\n'


def emit(v, indent, out):
    pad = ' ' * indent
    if isinstance(v, dict):
        for k in key_order(v):
            x = v[k]
            if isinstance(x, (dict, list)) and x:
                out.append(f'{pad}{k}:\n')
                emit(x, indent + 2, out)
            else:
                out.append(f'{pad}{k}: ' + ('{}\n' if x == {} else '[]\n' if x == [] else
                                             scalar(x, indent)))
    else:
        for x in v:
            if isinstance(x, dict) and x:
                sub = []
                emit(x, indent + 2, sub)
                sub[0] = pad + '- ' + sub[0][indent + 2:]
                out.extend(sub)
            else:
                out.append(f'{pad}- ' + scalar(x, indent))


out = []
emit(json.load(sys.stdin), 0, out)
sys.stdout.write(''.join(out))
