#!/usr/bin/env python3
"""Checks of deploy/: each the way its tool reads it.

  deploy_test.py manifests   Kubernetes manifests' structure (python3-yaml), always
  deploy_test.py kustomize   `kubectl kustomize` renders them (77 without kubectl)
  deploy_test.py systemd     `systemd-analyze verify` of the unit (77 without it)
  deploy_test.py prometheus  `promtool check config` of the example (rules included)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE_DIR = os.environ.get(
    "FABRIC_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
EXPORTER = os.environ.get("FABRIC_EXPORTER",
                          os.path.join(SOURCE_DIR, "build", "bin", "fabric_exporter"))
DEPLOY = os.path.join(SOURCE_DIR, "deploy")
K8S = os.path.join(DEPLOY, "kubernetes")
UNIT = os.path.join(DEPLOY, "systemd", "fabric-exporter.service")


def require(tool):
    """The tool's path; main() has checked that it is installed."""
    return shutil.which(tool)


def load_yaml_docs(text):
    import yaml
    return [d for d in yaml.safe_load_all(text) if d is not None]


def read(path):
    with open(path) as f:
        return f.read()


def kustomize_copy(tmp):
    """deploy/kubernetes with a throw-away probe secret (never committed)."""
    target = os.path.join(tmp, "kubernetes")
    shutil.copytree(K8S, target)
    with open(os.path.join(target, "probe.secret"), "w") as f:
        f.write(os.urandom(24).hex() + "\n")
    return target


class Manifests(unittest.TestCase):
    """What the cluster needs, checked on the source files (no kubectl)."""

    @classmethod
    def setUpClass(cls):
        cls.kustomization = load_yaml_docs(read(os.path.join(K8S, "kustomization.yaml")))[0]
        cls.objects = {}
        for name in cls.kustomization["resources"]:
            for doc in load_yaml_docs(read(os.path.join(K8S, name))):
                cls.objects[doc["kind"]] = doc

    def test_every_resource_listed_and_present(self):
        listed = set(self.kustomization["resources"])
        on_disk = {f for f in os.listdir(K8S) if f.endswith(".yaml") and f != "kustomization.yaml"}
        self.assertEqual(listed, on_disk)
        self.assertEqual(set(self.objects), {"Namespace", "DaemonSet", "Service", "ServiceMonitor",
                                             "PrometheusRule"})
        for gen in self.kustomization["configMapGenerator"] + self.kustomization["secretGenerator"]:
            for f in gen["files"]:
                if f != "probe.secret":  # written by the operator, never committed
                    self.assertTrue(os.path.exists(os.path.join(K8S, f)), f)

    def test_daemonset_host_network_mounts_and_capabilities(self):
        spec = self.objects["DaemonSet"]["spec"]["template"]["spec"]
        self.assertTrue(spec["hostNetwork"])
        self.assertEqual(spec["dnsPolicy"], "ClusterFirstWithHostNet")
        (c,) = spec["containers"]
        sc = c["securityContext"]
        self.assertEqual(sc["capabilities"]["drop"], ["ALL"])
        self.assertEqual(set(sc["capabilities"]["add"]), {"NET_RAW", "IPC_LOCK"})
        self.assertFalse(sc["allowPrivilegeEscalation"])
        self.assertTrue(sc["readOnlyRootFilesystem"])
        self.assertNotIn("privileged", sc)
        mounts = {m["name"]: m for m in c["volumeMounts"]}
        volumes = {v["name"]: v for v in spec["volumes"]}
        self.assertEqual(set(mounts), set(volumes))
        self.assertEqual(volumes["proc"]["hostPath"]["path"], "/proc")
        self.assertEqual(volumes["sys"]["hostPath"]["path"], "/sys")
        for host in ("proc", "sys", "config", "secret"):
            self.assertTrue(mounts[host]["readOnly"], host)
        self.assertEqual(volumes["secret"]["secret"]["defaultMode"] & 0o077, 0)
        # The config the pods read sits where --config.file says, and points
        # at the mounts the pod has.
        args = " ".join(c["args"])
        config_arg = re.search(r"--config.file=(\S+)", args).group(1)
        self.assertEqual(os.path.dirname(config_arg), mounts["config"]["mountPath"])
        generated = {g["name"]: g for g in self.kustomization["configMapGenerator"]}
        self.assertEqual(volumes["config"]["configMap"]["name"], "fabric-exporter-config")
        self.assertIn(os.path.basename(config_arg), generated["fabric-exporter-config"]["files"])
        config = load_yaml_docs(read(os.path.join(K8S, os.path.basename(config_arg))))[0]
        self.assertEqual(config["paths"], {"procfs": mounts["proc"]["mountPath"],
                                           "sysfs": mounts["sys"]["mountPath"]})
        self.assertEqual(os.path.dirname(config["probes"]["secret_file"]),
                         mounts["secret"]["mountPath"])
        self.assertEqual(volumes["secret"]["secret"]["secretName"],
                         self.kustomization["secretGenerator"][0]["name"])
        for key in ("state_file",):
            self.assertTrue(config["probes"][key].startswith(mounts["state"]["mountPath"] + "/"))
        self.assertTrue(config["probes"]["storage"]["directory"].startswith(
            mounts["state"]["mountPath"] + "/"))
        self.assertNotIn("self", config["fleet"])  # one file for every node
        # The nodes file is in the same ConfigMap, so it is mounted beside the config.
        self.assertIn(config["fleet"]["nodes_file"],
                      self.kustomization["configMapGenerator"][0]["files"])
        self.assertTrue(os.path.exists(os.path.join(K8S, config["fleet"]["nodes_file"])))
        ports = {p["name"]: p["containerPort"] for p in c["ports"]}
        self.assertEqual(ports, {"metrics": 9877, "responder": 9878})
        self.assertIn(":9877", args)

    def test_fleet_config_is_valid_for_the_exporter(self):
        # The ConfigMap's file as the exporter reads it (--config.check), with
        # the pod's mounts mapped to this host: only paths change.
        import yaml
        config = load_yaml_docs(read(os.path.join(K8S, "fabric_exporter.yml")))[0]
        with tempfile.TemporaryDirectory() as tmp:
            secret = os.path.join(tmp, "probe.secret")
            with open(secret, "w") as f:
                f.write(os.urandom(24).hex() + "\n")
            os.chmod(secret, 0o600)
            config["paths"] = {"procfs": "/proc", "sysfs": "/sys"}
            config["probes"]["secret_file"] = secret
            config["probes"]["state_file"] = os.path.join(tmp, "state.yml")
            config["probes"]["storage"]["directory"] = tmp
            # The nodes file, mounted beside the config as the ConfigMap's other file.
            shutil.copy(os.path.join(K8S, config["fleet"]["nodes_file"]), tmp)
            nodes = load_yaml_docs(read(os.path.join(K8S, config["fleet"]["nodes_file"])))[0]
            # Each pod finds itself by host name; here, be the first node.
            config["fleet"]["self"] = nodes["nodes"][0]["name"]
            path = os.path.join(tmp, "fabric_exporter.yml")
            with open(path, "w") as f:
                yaml.safe_dump(config, f)
            r = subprocess.run([EXPORTER, "--config.file=" + path, "--config.check"],
                               capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("configuration OK", r.stdout + r.stderr)

    def test_service_and_servicemonitor_select_the_pods(self):
        pod_labels = self.objects["DaemonSet"]["spec"]["template"]["metadata"]["labels"]
        svc = self.objects["Service"]
        self.assertLessEqual(svc["spec"]["selector"].items(), pod_labels.items())
        self.assertEqual(svc["spec"]["clusterIP"], "None")
        sm = self.objects["ServiceMonitor"]["spec"]
        self.assertLessEqual(sm["selector"]["matchLabels"].items(),
                             svc["metadata"]["labels"].items())
        self.assertEqual({e["port"] for e in sm["endpoints"]},
                         {p["name"] for p in svc["spec"]["ports"]})
        # The Operator names the job after the Service: it must be the rule
        # bundle's selector (job="fabric").
        self.assertIn('job="%s"' % svc["metadata"]["name"],
                      read(os.path.join(SOURCE_DIR, "rules", "mixin", "config.libsonnet")))

    def test_prometheusrule_is_the_rule_bundle(self):
        rule = self.objects["PrometheusRule"]
        bundle = load_yaml_docs(read(os.path.join(SOURCE_DIR, "rules", "fabric-ladder.rules.yml")))
        self.assertEqual(rule["spec"], bundle[0])
        r = subprocess.run([os.path.join(K8S, "generate"), "--check"], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_generate_check_catches_drift(self):
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(K8S, os.path.join(tmp, "deploy", "kubernetes"))
            shutil.copytree(os.path.join(SOURCE_DIR, "rules"), os.path.join(tmp, "rules"))
            with open(os.path.join(tmp, "rules", "fabric-ladder.rules.yml"), "a") as f:
                f.write("  - name: \"extra\"\n    rules: []\n")
            r = subprocess.run([os.path.join(tmp, "deploy", "kubernetes", "generate"), "--check"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn("stale", r.stderr)


class Kustomize(unittest.TestCase):
    def test_renders_every_object(self):
        kubectl = require("kubectl")
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([kubectl, "kustomize", kustomize_copy(tmp)], capture_output=True,
                               text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        docs = load_yaml_docs(r.stdout)
        kinds = sorted(d["kind"] for d in docs)
        self.assertEqual(kinds, sorted(["Namespace", "ConfigMap", "Secret", "Service", "DaemonSet",
                                        "ServiceMonitor", "PrometheusRule"]))
        for d in docs:
            if d["kind"] != "Namespace":
                self.assertEqual(d["metadata"]["namespace"], "fabric-ladder", d["kind"])
        by_kind = {d["kind"]: d for d in docs}
        # Generated names (content hash) are wired into the DaemonSet.
        volumes = {v["name"]: v for v in
                   by_kind["DaemonSet"]["spec"]["template"]["spec"]["volumes"]}
        self.assertEqual(volumes["config"]["configMap"]["name"],
                         by_kind["ConfigMap"]["metadata"]["name"])
        self.assertEqual(volumes["secret"]["secret"]["secretName"],
                         by_kind["Secret"]["metadata"]["name"])
        self.assertIn("probe.secret", by_kind["Secret"]["data"])
        self.assertIn("fabric_exporter.yml", by_kind["ConfigMap"]["data"])
        self.assertIn("fleet.yml", by_kind["ConfigMap"]["data"])

    def test_missing_secret_is_an_error_not_a_default_key(self):
        kubectl = require("kubectl")
        with tempfile.TemporaryDirectory() as tmp:
            target = kustomize_copy(tmp)
            os.unlink(os.path.join(target, "probe.secret"))
            r = subprocess.run([kubectl, "kustomize", target], capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("probe.secret", r.stderr)


class Systemd(unittest.TestCase):
    def test_unit_verifies_with_the_built_binary(self):
        analyze = require("systemd-analyze")
        self.assertTrue(os.access(EXPORTER, os.X_OK), EXPORTER)
        unit = read(UNIT)
        # verify checks that ExecStart exists: point it at the built binary.
        self.assertIn("ExecStart=/usr/bin/fabric_exporter ", unit)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "fabric-exporter.service")
            with open(path, "w") as f:
                f.write(unit.replace("/usr/bin/fabric_exporter", EXPORTER))
            r = subprocess.run([analyze, "verify", path], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual((r.stdout + r.stderr).strip(), "")

    def test_exposure_stays_low(self):
        # systemd's own hardening score (0 best, 10 worst) of the unit as
        # shipped: 2.1 today ("OK"); the threshold catches a setting dropped.
        analyze = require("systemd-analyze")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "fabric-exporter.service")
            with open(path, "w") as f:
                f.write(read(UNIT).replace("/usr/bin/fabric_exporter", EXPORTER))
            r = subprocess.run([analyze, "security", "--offline=true", "--threshold=25", path],
                               capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr)
        self.assertRegex(r.stdout, r"Overall exposure level for fabric-exporter.service: [0-2]\.")

    def test_hardening(self):
        settings = {}
        for line in read(UNIT).splitlines():
            if "=" in line and not line.startswith("#"):
                k, _, v = line.partition("=")
                settings.setdefault(k, []).append(v)
        self.assertEqual(settings["User"], ["fabric-ladder"])
        self.assertEqual(settings["NoNewPrivileges"], ["yes"])
        self.assertEqual(settings["ProtectSystem"], ["strict"])
        caps = set(settings["CapabilityBoundingSet"][0].split())
        self.assertEqual(caps, {"CAP_NET_RAW", "CAP_IPC_LOCK"})
        self.assertEqual(set(settings["AmbientCapabilities"][0].split()), caps)
        self.assertEqual(settings["LimitMEMLOCK"], ["infinity"])
        sysusers = read(os.path.join(DEPLOY, "systemd", "fabric-ladder.sysusers.conf"))
        self.assertRegex(sysusers, r"(?m)^u fabric-ladder ")


class PrometheusConfig(unittest.TestCase):
    def test_example_config_and_rules_check(self):
        promtool = require("promtool")
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(os.path.join(DEPLOY, "examples", "prometheus.yml"), tmp)
            shutil.copy(os.path.join(SOURCE_DIR, "rules", "fabric-ladder.rules.yml"), tmp)
            r = subprocess.run([promtool, "check", "config", os.path.join(tmp, "prometheus.yml")],
                               capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        bundle = load_yaml_docs(read(os.path.join(SOURCE_DIR, "rules", "fabric-ladder.rules.yml")))
        rules = sum(len(g["rules"]) for g in bundle[0]["groups"])
        self.assertIn(f"SUCCESS: {rules} rules found", r.stdout)

    def test_example_alertmanager_config_checks(self):
        amtool = require("amtool")
        r = subprocess.run([amtool, "check-config",
                            os.path.join(DEPLOY, "examples", "alertmanager.yml")],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


# Each check and the tools it needs; a missing one skips it (exit 77).
SUITES = {"manifests": (Manifests, []), "kustomize": (Kustomize, ["kubectl"]),
          "systemd": (Systemd, ["systemd-analyze"]),
          "prometheus": (PrometheusConfig, ["promtool", "amtool"])}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in SUITES:
        sys.exit("usage: deploy_test.py " + "|".join(SUITES))
    case, tools = SUITES[sys.argv[1]]
    missing = [t for t in tools if shutil.which(t) is None]
    try:
        import yaml  # noqa: F401
    except ImportError:
        missing.append("python3-yaml")
    if missing:
        print("SKIP: not installed: " + ", ".join(missing))
        sys.exit(77)
    suite = unittest.TestLoader().loadTestsFromTestCase(case)
    sys.exit(0 if unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful() else 1)
