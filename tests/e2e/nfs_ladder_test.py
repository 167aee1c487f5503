#!/usr/bin/env python3
"""The ladder of a node with an NFS-over-RDMA mount (tests/fixtures/nfs-rdma, issue 43): the
exporter's page at "/" and `fabric_probe ladder --replay` over the same recording and trees both
show the path to storage1 with its RDMA rung and the NFS client layer naming the mount's
transport and its rsize/wsize capped at 1 MiB below the 4 MiB asked; the path to storage2 names
its TCP mount without a cap."""
import json
import os
import subprocess
import unittest

from fabric_testlib.exporter_process import FIXTURES, Exporter, fixture_args
from fabric_testlib.ladder_sections import ladder_sections
from fabric_testlib.probe_process import PROBE

TREE = os.path.join(FIXTURES, "nfs-rdma")
CAP = ("/mnt/backup over rdma, rsize 1.0 MiB, wsize 1.0 MiB (capped: rsize 1.0 MiB below the "
       "4.0 MiB asked, wsize 1.0 MiB below the 4.0 MiB asked)")


class NfsLadderTest(unittest.TestCase):
    def test_the_page_names_the_nfs_rung_and_the_size_cap(self):
        with Exporter(*fixture_args("nfs-rdma")) as exporter:
            status, _, page = exporter.get("/")
        self.assertEqual(status, 200)
        found = ladder_sections(page)
        self.assertIn("storage1", found, page[:3000])
        body, text = found["storage1"]
        self.assertIn('data-layer="nfs"', body)
        self.assertIn('data-layer="rdma"', body)
        self.assertIn(CAP, text)
        self.assertIn("195 Gbit/s", text)  # The RDMA rung: 24.4 GB/s.
        body, text = found["storage2"]
        self.assertIn("/mnt/scratch over tcp, rsize 1.0 MiB, wsize 1.0 MiB", text)
        self.assertNotIn("capped", text)

    def test_fabric_probe_ladder_replay_names_them_too(self):
        p = subprocess.run([PROBE, "ladder", "--replay", os.path.join(TREE, "probes.rec.yml"),
                            "--peer", "storage1", "--interface", "ens1f0np0",
                            "--path.procfs", os.path.join(TREE, "proc"),
                            "--path.sysfs", os.path.join(TREE, "sys"),
                            "--nfs-requested-options", os.path.join(TREE, "fstab"), "--json"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        layers = {l["layer"]: l for l in json.loads(p.stdout)["layers"]}
        self.assertEqual(layers["nfs"]["status"], CAP)
        self.assertEqual(layers["rdma"]["bytes_per_second"], 24.4e9)
        # Without the request file the sizes are named, no cap claimed.
        p = subprocess.run([PROBE, "ladder", "--replay", os.path.join(TREE, "probes.rec.yml"),
                            "--peer", "storage1", "--path.procfs", os.path.join(TREE, "proc"),
                            "--path.sysfs", os.path.join(TREE, "sys"), "--json"],
                           capture_output=True, text=True, timeout=60)
        layers = {l["layer"]: l for l in json.loads(p.stdout)["layers"]}
        self.assertEqual(layers["nfs"]["status"], "/mnt/backup over rdma, rsize 1.0 MiB, wsize 1.0 MiB")


if __name__ == "__main__":
    unittest.main(verbosity=2)
