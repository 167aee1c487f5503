#!/usr/bin/env python3
"""fabric_testlib.listening.start: a server is handed back only once the socket
listening on its port is its own; a port another process holds (what a port
handed out twice by the kernel looks like) is left for another one."""
import socket
import subprocess
import sys
import unittest
import urllib.request

from fabric_testlib import listening


def http_server(port):
    return subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1",
                             str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class StartTest(unittest.TestCase):
    def setUp(self):
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            p.kill()
            p.wait()

    def launch(self, make):
        def launch(port):
            p = make(port)
            self.procs.append(p)
            return p
        return launch

    def test_the_server_listens_on_the_port_it_is_handed_back_with(self):
        proc, port = listening.start(self.launch(http_server), "http.server")
        self.assertTrue(listening.holds_socket(proc.pid, listening.listener_inode(port)))
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
            self.assertEqual(r.status, 200)

    def test_a_port_another_process_holds_is_left_for_another(self):
        # The port a second bind(0) got again: another server listens on it
        # first (here this test), so the started one cannot bind it and exits,
        # while the port still answers.
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            held = taken.getsockname()[1]
            fresh = listening.free_port()
            proc, port = listening.start(self.launch(http_server), "http.server",
                                         ports=iter([held, fresh]))
            self.assertEqual(port, fresh)
            self.assertEqual(len(self.procs), 2, "started again on the second port")
            self.assertIsNotNone(self.procs[0].poll(), "the first one could not bind and exited")
            self.assertTrue(listening.holds_socket(proc.pid, listening.listener_inode(fresh)))
            self.assertFalse(listening.holds_socket(proc.pid, listening.listener_inode(held)))

    def test_a_server_that_exits_otherwise_is_an_error(self):
        def exits(port):
            return subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(3)"])
        with self.assertRaisesRegex(RuntimeError, "quitter exited with status 3 before it "
                                                  "listened on 127.0.0.1:"):
            listening.start(self.launch(exits), "quitter")
        self.assertEqual(len(self.procs), 1, "not started again")

    def test_a_server_that_never_listens_is_stopped_and_an_error(self):
        def silent(port):
            return subprocess.Popen(["sleep", "60"])
        with self.assertRaisesRegex(RuntimeError, "sleeper did not listen on 127.0.0.1:[0-9]+ "
                                                  "within 1 s"):
            listening.start(self.launch(silent), "sleeper", timeout=1)
        self.assertIsNotNone(self.procs[0].poll(), "killed")


if __name__ == "__main__":
    unittest.main(verbosity=2)
