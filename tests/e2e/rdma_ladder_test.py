#!/usr/bin/env python3
"""Who uses RDMA on a path (issue 43): over the nics tree, whose recorded RDMA netlink dumps
(tests/fixtures/nics/rdma-netlink) hold NFS-over-RDMA queue pairs to node-b, an NVMe-over-RDMA
one to node-c and a training job's QPs connected without rdma_cm, the exporter's page at "/"
names on each path the processes whose QPs' rdma_cm ids name that peer, and `fabric_probe
ladder --replay --rdma-restrack-recording` names them too."""
import json
import os
import subprocess
import unittest

from fabric_testlib.exporter_process import FIXTURES, Exporter, fixture_args
from fabric_testlib.ladder_sections import ladder_sections
from fabric_testlib.probe_process import PROBE

TREE = os.path.join(FIXTURES, "nics")
UNPLACED = "peer unknown (connected without rdma_cm): fabric_exporter 1, python3 4"


class RdmaLadderTest(unittest.TestCase):
    def test_the_page_names_the_rdma_users_of_each_path(self):
        with Exporter(*fixture_args("nics")) as exporter:
            status, _, page = exporter.get("/")
        self.assertEqual(status, 200)
        found = ladder_sections(page)
        self.assertIn("node-b", found, page[:3000])
        body, text = found["node-b"]
        self.assertIn('data-layer="rdma_users"', body)
        self.assertIn("to this peer: [rpcrdma] 2; " + UNPLACED, text)
        _, text = found["node-c"]
        self.assertIn("to this peer: [nvme_rdma] 1; " + UNPLACED, text)

    def test_fabric_probe_ladder_replay_names_them_too(self):
        p = subprocess.run([PROBE, "ladder", "--replay", os.path.join(TREE, "probes.rec.yml"),
                            "--peer", "node-b", "--path.procfs", os.path.join(TREE, "proc"),
                            "--path.sysfs", os.path.join(TREE, "sys"),
                            "--rdma-restrack-recording", os.path.join(TREE, "rdma-netlink"),
                            "--json"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        layers = {l["layer"]: l for l in json.loads(p.stdout)["layers"]}
        # Without the fleet the CLI knows node-b by its --peer name only, not by address: the
        # rdma_cm destinations (198.18.0.2) place no QP on this path.
        self.assertEqual(layers["rdma_users"]["status"], UNPLACED)
        self.assertNotIn("bytes_per_second", {k for k, v in layers["rdma_users"].items()
                                              if v is not None})


if __name__ == "__main__":
    unittest.main(verbosity=2)
