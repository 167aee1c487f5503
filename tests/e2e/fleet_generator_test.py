#!/usr/bin/env python3
"""`fabric_probe fleet` (issue 44 item 1): the fleet's nodes file written from a recorded
`kubectl get nodes -o json` (tests/fixtures/kubernetes/nodes.json) and from a CSV inventory,
read back by fabric_exporter --config.check, with the digest docs/scale.md defines; bad input
names its file, line and key, and usage errors exit 2."""
import json
import os
import subprocess
import tempfile
import unittest

import yaml

from fabric_testlib.exporter_process import EXPORTER, FIXTURES
from fabric_testlib.fleet_digest import fleet_digest
from fabric_testlib.probe_process import PROBE

NODES_JSON = os.path.join(FIXTURES, "kubernetes", "nodes.json")

# What the fixture holds, read by eye from it: the annotation's address where a node has one,
# else its InternalIP; the zone as rack; the plane label; the first node-role label.
EXPECTED = [
    {"name": "gpu-a01", "address": "198.18.10.11", "rack": "rack-a", "plane": "rail0", "role": "worker"},
    {"name": "gpu-a02", "address": "198.18.10.12", "rack": "rack-a", "plane": "rail0", "role": "worker"},
    {"name": "gpu-b01", "address": "198.18.20.11", "rack": "rack-b", "plane": "rail1", "role": "worker"},
    {"name": "stor-b01", "address": "198.18.20.50", "rack": "rack-b", "role": "storage"},
]


def fleet(*args):
    return subprocess.run([PROBE, "fleet", *args], capture_output=True, text=True, timeout=60)


class FleetGeneratorTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="fleet-gen-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def check_config(self, nodes_file, self_name):
        config = self.write("fabric_exporter.yml",
                            f"fleet:\n  self: {self_name}\n  nodes_file: {nodes_file}\n")
        return subprocess.run([EXPORTER, "--config.check", "--config.file=" + config],
                              capture_output=True, text=True, timeout=60)

    def test_kubernetes_node_list(self):
        out = fleet("--from-kubernetes-nodes", NODES_JSON, "--interface", "ens1f0np0",
                    "--mtu", "9000")
        self.assertEqual(out.returncode, 0, out.stderr)
        want = [dict(n, interface="ens1f0np0", mtu=9000) for n in EXPECTED]
        self.assertEqual(yaml.safe_load(out.stdout), {"nodes": want}, out.stdout)
        digest = fleet_digest(want)
        self.assertIn(f"4 nodes, digest {digest}", out.stderr)
        self.assertIn(f"digest {digest}", out.stdout.splitlines()[2])  # The file says it too.
        # The exporter reads the file as written.
        path = self.write("fleet.yml", out.stdout)
        check = self.check_config(path, "gpu-b01")
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        self.assertIn("configuration OK", check.stdout)

    def test_label_keys_are_flags(self):
        out = fleet("--from-kubernetes-nodes", NODES_JSON, "--address-annotation", "",
                    "--rack-label", "kubernetes.io/hostname", "--plane-label", "",
                    "--role-label", "nvidia.com/gpu.product",
                    "--output", os.path.join(self.dir, "out.yml"))
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(os.path.join(self.dir, "out.yml")) as f:
            nodes = yaml.safe_load(f)["nodes"]
        self.assertEqual(out.stdout, "")
        # InternalIP without the annotation; no plane key at all; the GPU product as role.
        self.assertEqual([n["address"] for n in nodes],
                         ["10.20.1.11", "10.20.1.12", "10.20.2.11", "198.18.20.50"])
        self.assertEqual([n["rack"] for n in nodes], [n["name"] for n in EXPECTED])
        self.assertTrue(all("plane" not in n for n in nodes), nodes)
        self.assertEqual([n.get("role") for n in nodes], ["NVIDIA-H100-80GB-HBM3"] * 3 + [None])

    def test_bad_node_lists_name_file_line_and_key(self):
        with open(NODES_JSON) as f:
            doc = json.load(f)
        # gpu-a02 without its annotation and its InternalIP.
        node = doc["items"][1]
        del node["metadata"]["annotations"]["fabric-ladder.io/fabric-address"]
        node["status"]["addresses"] = [a for a in node["status"]["addresses"]
                                       if a["type"] != "InternalIP"]
        text = json.dumps(doc, indent=4) + "\n"
        path = self.write("nodes.json", text)
        lines = text.splitlines()
        status = [i for i, l in enumerate(lines) if l.strip().startswith('"status": {')][1]
        column = lines[status].index("{") + 1
        out = fleet("--from-kubernetes-nodes", path)
        self.assertEqual(out.returncode, 1, out.stderr)
        self.assertEqual(out.stdout, "")
        self.assertIn(f"{path}:{status + 1}:{column}: key items[1].status: node \"gpu-a02\" has no "
                      "InternalIP address and no fabric-ladder.io/fabric-address annotation",
                      out.stderr)
        # Two nodes with one fabric address: the exporter's own check, before anything is
        # written.
        with open(NODES_JSON) as f:
            doc = json.load(f)
        doc["items"][1]["metadata"]["annotations"]["fabric-ladder.io/fabric-address"] = "198.18.10.11"
        out = fleet("--from-kubernetes-nodes", self.write("dup.json", json.dumps(doc)),
                    "--output", os.path.join(self.dir, "never.yml"))
        self.assertEqual(out.returncode, 1, out.stderr)
        self.assertIn("address 198.18.10.11 is listed twice", out.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "never.yml")))
        # Not a node list at all.
        out = fleet("--from-kubernetes-nodes", self.write("pod.json", '{"kind": "Pod"}\n'))
        self.assertEqual(out.returncode, 1, out.stderr)
        self.assertIn("pod.json:1:10: key kind: expected the output of `kubectl get nodes -o json`",
                      out.stderr)

    def test_csv_inventory(self):
        csv = self.write("inventory.csv",
                         "name,address,interface,mtu,rack,plane,role\n"
                         "gpu-b01,198.18.20.11,ens1f0np0,9000,rack-b,rail1,worker\n"
                         "gpu-a01,198.18.10.11,ens1f0np0,9000,rack-a,rail0,worker\n"
                         "stor-b01,198.18.20.50,ens1f0np0,9000,rack-b,,storage\n"
                         "gpu-a02,198.18.10.12,ens1f0np0,9000,rack-a,rail0,worker\n")
        out = fleet("--from-csv", csv)
        self.assertEqual(out.returncode, 0, out.stderr)
        want = [dict(n, interface="ens1f0np0", mtu=9000) for n in EXPECTED]
        self.assertEqual(yaml.safe_load(out.stdout), {"nodes": want})
        # The same fleet as the Kubernetes list: the same digest.
        self.assertIn(f"digest {fleet_digest(want)}", out.stderr)
        # The CSV itself is a nodes file too.
        check = self.check_config(csv, "stor-b01")
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        bad = self.write("bad.csv", "name,address,mtu\na,198.18.0.1,9000\nb,198.18.0.2,90000\n")
        out = fleet("--from-csv", bad)
        self.assertEqual(out.returncode, 1)
        self.assertIn(f"{bad}:3:14: column mtu: value 90000 is out of range [576, 65535]",
                      out.stderr)

    def test_usage(self):
        for args in ([], ["--from-csv", "a.csv", "--from-kubernetes-nodes", "n.json"],
                     ["--from-csv", "a.csv", "extra"], ["--from-kubernetes-nodes", NODES_JSON,
                                                        "--mtu", "99"]):
            out = fleet(*args)
            self.assertEqual(out.returncode, 2, (args, out.stderr))
        out = fleet("--help")
        self.assertEqual(out.returncode, 0)
        self.assertIn("--from-kubernetes-nodes", out.stdout)
        top = subprocess.run([PROBE, "--help"], capture_output=True, text=True)
        self.assertIn("fleet", top.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
