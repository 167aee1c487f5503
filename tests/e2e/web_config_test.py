#!/usr/bin/env python3
"""--web.config.file end to end with curl: TLS, mutual TLS, TLS versions,
basic auth with bcrypt hashes, extra headers, and config errors."""
import os
import shutil
import subprocess
import tempfile
import unittest
import warnings

from fabric_testlib.exporter_process import EXPORTER, Exporter

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import crypt  # bcrypt through the system libcrypt, as htpasswd -B would


def bcrypt(password):
    return crypt.crypt(password, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 6))


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_pki(d):
    """A CA, a server certificate for 127.0.0.1, a client certificate from the
    same CA and a rogue client certificate from another CA."""
    for ca in ("ca", "rogue-ca"):
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={ca}",
                "-keyout", f"{ca}.key", "-out", f"{ca}.crt", cwd=d)
    for name, ca, ext in (("server", "ca", "subjectAltName=IP:127.0.0.1"),
                          ("client", "ca", "extendedKeyUsage=clientAuth"),
                          ("rogue", "rogue-ca", "extendedKeyUsage=clientAuth")):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}", "-keyout", f"{name}.key",
                "-out", f"{name}.csr", cwd=d)
        with open(os.path.join(d, f"{name}.ext"), "w") as f:
            f.write(ext + "\n")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key",
                "-CAcreateserial", "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.crt", cwd=d)


def curl(url, *args):
    """Returns (HTTP status or 0 when the connection failed, headers+body)."""
    r = subprocess.run(["curl", "-s", "-i", "-o", "-", "-w", "\n%{http_code}", "--max-time", "10", *args, url],
                       capture_output=True, text=True)
    body, _, code = r.stdout.rpartition("\n")
    return int(code or 0), body


class WebConfigTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if shutil.which("openssl") is None or shutil.which("curl") is None:
            raise RuntimeError("openssl and curl are needed: run scripts/setup-deps --test")
        cls.dir = tempfile.mkdtemp(prefix="fabric-webcfg-")
        make_pki(cls.dir)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def p(self, name):
        return os.path.join(self.dir, name)

    def web_config(self, text):
        path = os.path.join(self.dir, f"web-{self.id().rsplit('.', 1)[-1]}.yml")
        with open(path, "w") as f:
            f.write(text)
        return path

    def tls_block(self, extra=""):
        return (f"tls_server_config:\n  cert_file: {self.p('server.crt')}\n"
                f"  key_file: {self.p('server.key')}\n{extra}")

    def test_basic_auth(self):
        cfg = self.web_config(f"basic_auth_users:\n  prometheus: '{bcrypt('s3cret')}'\n")
        with Exporter("--web.config.file=" + cfg) as e:
            url = e.base_url + "/metrics"
            code, head = curl(url)
            self.assertEqual(code, 401)
            self.assertIn('WWW-Authenticate: Basic realm="fabric_exporter"', head)
            self.assertEqual(curl(url, "-u", "prometheus:wrong")[0], 401)
            self.assertEqual(curl(url, "-u", "nobody:s3cret")[0], 401)
            code, body = curl(url, "-u", "prometheus:s3cret")
            self.assertEqual(code, 200)
            self.assertIn("fabric_scrape_collector_success", body)
            # The cached second check must still reject a wrong password.
            self.assertEqual(curl(url, "-u", "prometheus:s3cret")[0], 200)
            self.assertEqual(curl(url, "-u", "prometheus:s3creT")[0], 401)
            self.assertEqual(curl(e.base_url + "/")[0], 401)
            self.assertEqual(curl(e.base_url + "/", "-u", "prometheus:s3cret")[0], 200)

    def test_basic_auth_over_ipv6_plain_http(self):
        # [IPv6] addresses are served by the exporter's own listener (Debian's civetweb has no
        # IPv6): basic auth must hold there as on civetweb.
        cfg = self.web_config(f"basic_auth_users:\n  prometheus: '{bcrypt('s3cret')}'\n")
        with Exporter("--web.config.file=" + cfg, "--web.listen-address=[::1]:0") as e:
            self.assertRegex(e.base_url, r"^http://\[::1\]:\d+$")
            url = e.base_url + "/metrics"
            code, head = curl(url)
            self.assertEqual(code, 401)
            self.assertIn('WWW-Authenticate: Basic realm="fabric_exporter"', head)
            self.assertEqual(curl(url, "-u", "prometheus:wrong")[0], 401)
            self.assertEqual(curl(url, "-u", "nobody:s3cret")[0], 401)
            code, body = curl(url, "-u", "prometheus:s3cret")
            self.assertEqual(code, 200)
            self.assertIn("fabric_scrape_collector_success", body)
            self.assertEqual(curl(url, "-u", "prometheus:s3creT")[0], 401)
            self.assertEqual(curl(e.base_url + "/")[0], 401)
            self.assertEqual(curl(e.base_url + "/-/healthy", "-u", "prometheus:s3cret")[0], 200)

    def test_tls_serves_https_only(self):
        cfg = self.web_config(self.tls_block())
        with Exporter("--web.config.file=" + cfg) as e:
            self.assertTrue(e.base_url.startswith("https://"))
            https = e.base_url + "/metrics"
            plain = https.replace("https://", "http://")
            code, body = curl(https, "--cacert", self.p("ca.crt"))
            self.assertEqual(code, 200)
            self.assertIn("fabric_exporter_build_info", body)
            code, body = curl(https, "--cacert", self.p("ca.crt"), "--compressed")
            self.assertEqual(code, 200)
            self.assertIn("content-encoding: gzip", body.lower())
            self.assertIn("fabric_exporter_build_info", body)  # curl decompressed it.
            self.assertNotEqual(curl(plain)[0], 200, "plain HTTP must not be served on the TLS port")
            self.assertEqual(curl(https)[0], 0, "an untrusted server certificate must fail verification")

    def test_mutual_tls(self):
        cfg = self.web_config(self.tls_block(
            f"  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: {self.p('ca.crt')}\n"))
        with Exporter("--web.config.file=" + cfg) as e:
            url = e.base_url + "/metrics"
            ca = ["--cacert", self.p("ca.crt")]
            self.assertEqual(curl(url, *ca)[0], 0, "no client certificate must be refused")
            self.assertEqual(curl(url, *ca, "--cert", self.p("rogue.crt"), "--key", self.p("rogue.key"))[0], 0,
                             "a client certificate from another CA must be refused")
            self.assertEqual(curl(url, *ca, "--cert", self.p("client.crt"), "--key", self.p("client.key"))[0], 200)

    def test_min_version(self):
        cfg = self.web_config(self.tls_block("  min_version: TLS13\n"))
        with Exporter("--web.config.file=" + cfg) as e:
            url = e.base_url + "/metrics"
            self.assertEqual(curl(url, "--cacert", self.p("ca.crt"), "--tls-max", "1.2")[0], 0)
            self.assertEqual(curl(url, "--cacert", self.p("ca.crt"))[0], 200)

    def assert_config_error(self, text, expected):
        cfg = self.web_config(text)
        r = subprocess.run([EXPORTER, "--web.config.file=" + cfg, "--web.listen-address=127.0.0.1:0"],
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(cfg + expected, r.stderr)

    def test_config_errors_name_file_line_and_key(self):
        self.assert_config_error("basic_auth_users:\n  admin: hunter2\n",
                                 ":2:10: key basic_auth_users.admin: expected a bcrypt hash")
        self.assert_config_error("tls_server_config:\n  cert_file: /nonexistent.crt\n  key_file: /x.key\n",
                                 ':2:14: key tls_server_config.cert_file: cannot read "/nonexistent.crt"')
        self.assert_config_error(self.tls_block("  cipher_suites: [TLS_AES_128_GCM_SHA256]\n"),
                                 ":4:3: key tls_server_config.cipher_suites: unknown key")
        self.assert_config_error(self.tls_block("  client_auth_type: RequireAndVerifyClientCert\n"),
                                 ":4:21: key tls_server_config.client_auth_type: verifying client "
                                 "certificates needs client_ca_file")
        self.assert_config_error("tls_server_confg: {}\n", ":1:1: key tls_server_confg: unknown key")
        self.assert_config_error("http_server_config:\n  headers:\n    X-Frame-Options: deny\n",
                                 ":3:5: key http_server_config.headers: not supported by fabric_exporter")

    def test_mismatched_key_is_a_start_up_error(self):
        cfg = self.web_config(f"tls_server_config:\n  cert_file: {self.p('server.crt')}\n"
                              f"  key_file: {self.p('client.key')}\n")
        r = subprocess.run([EXPORTER, "--web.config.file=" + cfg, "--web.listen-address=127.0.0.1:0"],
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 1)
        self.assertIn("TLS set-up failed", r.stderr)
        self.assertIn("is it the key of", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
