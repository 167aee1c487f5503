#!/usr/bin/env python3
"""The error-text checker fails on what it exists to catch: a copy of the
source trees passes unchanged, and each planted classification of an error by
its text (a prefix test of error().message, a search in a message, a message
compared to a literal, a prefix table through an alias, a search of strerror
text), alone in an otherwise empty tree, makes it fail naming the planted
file and line. Comments may still talk
about messages."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "error_text_test.py")
SRC = os.environ.get("FABRIC_SOURCE_DIR", os.path.join(HERE, "..", ".."))
TREES = ("common", "active-probes", "exporter")

PLANTED = {
    "prefix of a message": 'if (StartsWith(r.error().message, "refused:")) return 5;',
    "search in a message": 'bool full = error.message.find("No space left") != std::string::npos;',
    "message equals a literal": 'if (s.error().message == "busy") retry = true;',
    "literal equals a message": 'if ("timeout: no answer" == e.message) return 7;',
    "prefix table through an alias": 'if (StartsWith(m, "unreachable:")) return Kind::kUnreachable;',
    "kind word compared": 'if (kind == "no-port") return "no_active_port";',
    "strerror text searched": 'if (strstr(text.c_str(), strerror(ENOSPC))) return kFull;',
}


def copy_sources(dst):
    def ignore(directory, names):
        return [n for n in names
                if not os.path.isdir(os.path.join(directory, n)) and not n.endswith((".cc", ".h"))]
    for tree in TREES:
        shutil.copytree(os.path.join(SRC, tree), os.path.join(dst, tree), ignore=ignore)


def check(root):
    r = subprocess.run([sys.executable, CHECKER, root], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


class ErrorTextSelfTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="fabric-error-text-")
        self.root = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def plant(self, rel, body):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("// planted\nnamespace fabric {\nint Planted() {\n  " + body + "\n}\n}\n")

    def test_the_clean_copy_passes(self):
        copy_sources(self.root)
        rc, out = check(self.root)
        self.assertEqual(rc, 0, out)

    def test_each_planted_classification_fails(self):
        for what, body in PLANTED.items():
            with self.subTest(what):
                rel = "exporter/scheduled_probes/planted.cc"
                self.plant(rel, body)
                rc, out = check(self.root)
                self.assertEqual(rc, 1, out)
                self.assertIn(rel + ":4:", out)
                os.remove(os.path.join(self.root, rel))

    def test_comments_and_codes_pass(self):
        self.plant("active-probes/tcp/planted.cc",
                   '// Not StartsWith(e.message, "refused:"): the code says it.\n'
                   '  /* message.find("x") */ if (e.code == ErrorCode::kRefused) return 5;\n'
                   '  return MakeError(ErrorCode::kTimeout, "timeout: no answer");')
        rc, out = check(self.root)
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
