#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target from the fixtures.

Usage: make_seeds.py SOURCE_DIR OUT_DIR

Each target's inputs start with a selector byte naming the entry point (see
the target's switch), so fixture files are written with that byte in front.
A few shapes no fixture holds (mountinfo, /proc/stat, netlink dumps, control
messages) are built here. The YAML and control-protocol targets also get a
libFuzzer dictionary (OUT_DIR/TARGET.dict) of the keys and verbs their
parsers look for, taken from the source so it follows the code.
"""

import pathlib
import re
import struct
import sys

SRC = pathlib.Path(sys.argv[1])
OUT = pathlib.Path(sys.argv[2])
FIX = SRC / "tests" / "fixtures"


class Corpus:
    def __init__(self, target):
        self.dir = OUT / target
        self.dir.mkdir(parents=True, exist_ok=True)
        self.count = 0

    def add(self, data, selector=None):
        if isinstance(data, str):
            data = data.encode()
        if selector is not None:
            data = bytes([selector]) + data
        self.count += 1
        (self.dir / f"seed-{self.count:04d}").write_bytes(data)


def files(pattern, limit=40):
    return sorted(FIX.glob(pattern))[:limit]


def procfs():
    c = Corpus("fuzz_procfs")
    for f in files("*/proc/net/softnet_stat"):
        c.add(f.read_bytes(), 0)
    for f in files("*/proc/net/snmp") + files("*/proc/net/netstat"):
        c.add(f.read_bytes(), 1)
    for f in files("*/proc/sys/net/*/*"):
        c.add(f.read_bytes(), 2)
        c.add(f.read_bytes(), 3)
    c.add("36 25 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
          "87 36 259:2 /data /var/lib/data rw,noatime - xfs /dev/nvme0n1p2 rw\n"
          "88 36 0:45 / /mnt/with\\040space rw - tmpfs tmpfs rw,size=1024k\n", 4)
    c.add("cpu  4705 356 584 3699 23 23 0 0 0 0\n"
          "cpu0 1393 280 290 1829 11 12 0 0 0 0\n"
          "cpu1 3312 76 294 1870 12 11 0 0 0 0\nintr 1462898\nctxt 2055\n", 5)
    for cpus in ("0-3,8-11", "0", "0-63", "1,3,5-7\n"):
        c.add(cpus, 6)
    for f in files("*/proc/self/mountstats"):
        c.add(f.read_bytes(), 7)
    for f in files("*/fstab"):
        c.add(f.read_bytes(), 8)
    c.add("4242 (fabric ex)porter) S 1 4242 4242 0 -1 4194560 2719 0 0 0 37 12 0 0 20 0 9 0 "
          "123456 567894016 3072 18446744073709551615 1 1 0 0 0 0 0 4096 17991 0 0\n", 9)
    c.add("cpu  1 2 3 4 5 6 7 8\nintr 1\nbtime 1765065600\nprocesses 7\n", 10)
    c.add("Limit                     Soft Limit           Hard Limit           Units     \n"
          "Max open files            1048576              1048576              files     \n", 11)


def sysfs():
    c = Corpus("fuzz_sysfs")
    for f in files("**/ports/*/state", 4) + files("**/ports/*/phys_state", 4):
        c.add(f.read_bytes(), 0)
    for f in files("**/ports/*/rate", 4):
        c.add(f.read_bytes(), 1)
    for f in files("**/current_link_speed", 8) + files("**/max_link_width", 8):
        c.add(f.read_bytes(), 2)
    for f in files("**/vendor", 4) + files("**/device", 4):
        if f.is_file():
            c.add(f.read_bytes(), 3)
    c.add("../../../devices/pci0000:00/0000:00:03.0/0000:01:00.0/virtio2", 3)
    for f in files("**/aer_dev_*", 6):
        c.add(f.read_bytes(), 4)
    c.add(struct.pack("<HIHII", 0x0042, 0x0044_5d04, 0x1044, 0x00c8_0000, 0x3e), 5)
    for text in ("18446744073709551615", "-9223372036854775808", "1.5e3", "0x1f"):
        c.add(text, 6)
    c.add("a  b\tc\nd\n", 7)
    for f in files("**/nvme*n1/stat", 4):
        c.add(f.read_bytes(), 8)
    for f in files("**/nvme-fabrics/ctl/*/address", 4):
        c.add(f.read_bytes(), 9)


def ethtool():
    c = Corpus("fuzz_ethtool")
    selector = {"driver.txt": 1, "statistics.txt": 2, "pause.txt": 3, "channels.txt": 4,
                "rings.txt": 4, "fec.txt": 6, "coalesce.txt": 7, "features.txt": 8}
    for f in files("**/ethtool.recorded/*.txt", 60):
        first, _, rest = f.read_bytes().partition(b"\n")
        c.add(first, 0)
        if f.name in selector:
            c.add(rest, selector[f.name])
    c.add("mlx5_core\nrx_prio3_pause", 5)
    c.add("ice\ntx_queue_7_packets", 5)


def flows():
    c = Corpus("fuzz_flows")
    for f in files("**/flows.rec", 4):
        c.add(f.read_bytes(), 0)
    for text in ("10.0.0.1", "fe80::1%eth0", "2001:db8::/32", "192.168.0.0/16", "::ffff:1.2.3.4"):
        c.add(text, 1)


def collectives():
    c = Corpus("fuzz_collectives")
    for f in files("*/nccl/*.prom", 4):
        c.add(f.read_bytes(), 0)
        c.add(f.read_bytes(), 1)
    for f in files("*/nccl/*.json*", 4):
        c.add(f.read_bytes(), 2)
    for text in ("2.00GB", "512B", "2026-12-01T03:31:47Z"):
        c.add(text, 3)
    for text in ("/opt/nccl-tests/build/all_reduce_perf", "alltoall_perf_mpi"):
        c.add(text, 4)


def nlmsg(msg_type, payload):
    body = payload + b"\0" * (-len(payload) % 4)
    return struct.pack("<IHHII", 16 + len(payload), msg_type, 2, 1, 0) + body


def rtattr(attr_type, payload):
    return struct.pack("<HH", 4 + len(payload), attr_type) + payload + b"\0" * (-len(payload) % 4)


def netlink():
    c = Corpus("fuzz_netlink")
    done = nlmsg(3, struct.pack("<i", 0))
    tcp_info = bytearray(232)
    tcp_info[0] = 1  # TCP_ESTABLISHED
    struct.pack_into("<III", tcp_info, 16, 1448, 1448, 40)  # snd_mss, rcv_mss, unacked
    diag = struct.pack("<BBBB", 2, 1, 0, 0) + struct.pack(">HH", 5201, 40000)
    diag += bytes([10, 0, 0, 1]) + bytes(12) + bytes([10, 0, 0, 2]) + bytes(12)
    diag += struct.pack("<IQ", 0, 1234) + struct.pack("<IIIII", 0, 0, 0, 0, 42)
    diag += rtattr(2, bytes(tcp_info)) + rtattr(7, struct.pack("<9I", *range(9)))
    c.add(nlmsg(20, diag) + done, 0)
    c.add(bytes(tcp_info), 1)
    addr = struct.pack("<BBBBI", 2, 24, 0, 0, 2) + rtattr(1, bytes([10, 0, 0, 1]))
    addr += rtattr(2, bytes([10, 0, 0, 1]))
    c.add(nlmsg(20, addr) + done, 2)
    link = struct.pack("<BBHiII", 0, 0, 1, 2, 0x1043, 0) + rtattr(3, b"eth0\0")
    c.add(nlmsg(16, link) + done, 3)
    c.add(nlmsg(2, struct.pack("<i", -1) + bytes(16)), 3)
    # RTM_NEWROUTE (24): rtmsg for AF_INET /32, then RTA_OIF, RTA_PREFSRC,
    # RTA_GATEWAY and RTA_METRICS holding RTAX_MTU.
    route = struct.pack("<BBBBBBBBI", 2, 32, 0, 0, 254, 0, 0, 1, 0)
    route += rtattr(4, struct.pack("<I", 2)) + rtattr(7, bytes([10, 0, 0, 1]))
    route += rtattr(5, bytes([10, 0, 0, 254])) + rtattr(8, rtattr(2, struct.pack("<I", 9000)))
    c.add(nlmsg(24, route), 4)
    c.add(nlmsg(2, struct.pack("<i", -101) + bytes(16)), 4)
    # ethtool generic netlink attributes (after nlmsghdr + genlmsghdr): the
    # recorded replies, and the shapes veth/tap cannot answer, built here.
    for name, selector in (("tap/coalesce.hex", 7), ("veth/features.hex", 9)):
        text = (FIX / "ethtool-netlink" / name).read_text()
        reply = bytes.fromhex(" ".join(l for l in text.splitlines() if not l.startswith("#")))
        c.add(reply[20:], selector)
    u64 = lambda *v: struct.pack(f"<{len(v)}Q", *v)
    pause_stats = rtattr(1, b"") + rtattr(2, u64(51234)) + rtattr(1, b"") + rtattr(3, u64(15))
    c.add(rtattr(2, b"\0") + rtattr(3, b"\1") + rtattr(4, b"\1") + rtattr(0x8005, pause_stats), 5)
    fec_stats = rtattr(2, u64(300, 100, 200)) + rtattr(3, u64(2, 2, 0)) + rtattr(4, u64(4096))
    fec_active = rtattr(4, struct.pack("<I", 50))  # ETHTOOL_LINK_MODE_FEC_RS_BIT
    c.add(rtattr(3, b"\0") + fec_active + rtattr(0x8005, fec_stats), 6)
    c.add(b"".join(rtattr(t, struct.pack("<I", v)) for t, v in
                   ((2, 8192), (5, 8192), (6, 1024), (9, 1024))), 8)


def rdma_netlink():
    # The recorded nldev dumps of the nics tree (tests/tools/make_rdma_netlink_fixture.py).
    c = Corpus("fuzz_rdma_netlink")
    dumps = FIX / "nics" / "rdma-netlink"
    c.add((dumps / "devices.nl").read_bytes(), 0)
    for path in sorted(dumps.glob("*.qp.nl")):
        c.add(path.read_bytes(), 1)
    for path in sorted(dumps.glob("*.cm_id.nl")):
        c.add(path.read_bytes(), 2)


def control():
    c = Corpus("fuzz_control")
    lines = [
        "HELLO probe=tcp v=1",
        "AUTH cnonce=00112233445566778899aabbccddeeff mac=" + "ab" * 32,
        "TEST up=4 down=0 duration_ms=2000 warmup_ms=500 mode=sendfile block=131072 "
        "rcvbuf=0 sndbuf=0",
        "RDMA_TEST qps=2 size=65536 tx_depth=128 duration_ms=1000 warmup_ms=200",
        "RDMA_ACCEPT token=abc cm_port=18516 addr=140737488355328 rkey=4660 length=131072 "
        "device=mlx5_0 port=1 mtu=4096",
        "RDMA_RESULT xmit_bytes=1 rcv_bytes=2 np_cnp_sent=0 rp_cnp_handled=0 out_of_buffer=0 "
        "user_us=10 system_us=20",
        "DATA index=3 token=deadbeef",
        "MARK phase=start",
        "BYE",
    ]
    for line in lines:
        c.add(line, 0)
    c.add("\n".join(lines) + "\n", 1)
    c.add("HELLO probe=tcp\r\nBYE\npartial", 1)
    # Past the 64 KiB line limit, with and without its newline (these also
    # raise the target's -max_len, which follows the largest seed).
    c.add("HELLO pad=" + "x" * 70000 + "\nBYE\n", 1)
    c.add("HELLO pad=" + "x" * 70000, 1)
    for text in ("10.0.0.0/8,192.168.1.0/24", "::1/128", "0.0.0.0/0,::/0", "[fe80::1]:18515",
                 "node-b:9000", "10.0.0.2"):
        c.add(text, 2)
    c.add(lines[1] + "\n" + lines[2] + "\n", 3)
    c.add("AUTH cnonce=short mac=x\n", 3)


def yaml_configs():
    c = Corpus("fuzz_config")
    for f in sorted(FIX.glob("*/fabric_exporter.yml")) + [
            SRC / "deploy" / "examples" / "fabric_exporter.yml"]:
        if f.is_file():
            c.add(f.read_bytes())
    w = Corpus("fuzz_web_config")
    example = SRC / "deploy" / "examples" / "web-config.yml"
    if example.is_file():
        w.add(example.read_bytes())
    w.add("tls_server_config:\n  cert_file: /nonexistent/cert.pem\n  key_file: /nonexistent/key\n"
          "  client_auth_type: RequireAndVerifyClientCert\n  min_version: TLS12\n"
          "basic_auth_users:\n  alice: $2y$10$abcdefghijklmnopqrstuv\n"
          "http_server_config:\n  http2: true\n")
    a = Corpus("fuzz_basic_auth")
    for header in ("Basic cHJvbWV0aGV1czpzM2NyZXQ=", "Basic cHJvbWV0aGV1czp3cm9uZw==",
                   "Basic dW5rbm93bjp4", "Bearer abc", ""):
        a.add(header)
    h = Corpus("fuzz_http_head")
    h.add("GET /metrics?x=1 HTTP/1.1\r\nHost: node-a:9877\r\n"
          "Authorization: Basic cHJvbWV0aGV1czpzM2NyZXQ=\r\nAccept: */*")
    h.add("HEAD / HTTP/1.0\r\nauthorization:   Bearer x  ")
    n = Corpus("fuzz_fleet_nodes")
    csv = ("name,address,interface,mtu,rack,plane,role\n"
           "gpu-001,198.18.0.1,ens1f0np0,9000,r01,p0,compute\n"
           "\"gpu,002\",fd00::2,,,r01,,\n")
    n.add(csv, 0)
    n.add(csv, 1)
    for f in [SRC / "deploy" / "examples" / "fleet.yml", SRC / "deploy" / "kubernetes" / "fleet.yml"]:
        if f.is_file():
            n.add(f.read_bytes(), 2)
    s = Corpus("fuzz_state_file")
    s.add("version: 1\nresults:\n  - probe: tcp_multi\n    target: node-b\n    direction: send\n"
          "    timestamp: 1700000000.5\n    success: true\n    failure_reason: \"\"\n"
          "    failure_detail: \"\"\n    duration: 12.25\n"
          "    values:\n      goodput_bytes_per_second: 1.2e10\n      retransmits: 3\n"
          "    verdicts:\n      receiver_window_limited: false\n    info:\n      interface: eth0\n"
          "  - probe: rdma\n    target: node-b\n    direction: \"\"\n    timestamp: 1700000001\n"
          "    success: false\n    failure_reason: refused\n    failure_detail: connection refused\n"
          "    duration: 0\n    values: {}\n    verdicts: {}\n    info: {}\n")


def dictionary(target, globs, pattern, extra=()):
    words = set(extra)
    for glob in globs:
        for f in sorted(SRC.glob(glob)):
            words.update(re.findall(pattern, f.read_text()))
    def escape(word):
        return "".join(c if " " <= c <= "~" and c not in '"\\' else "\\x%02X" % ord(c)
                       for c in word)
    lines = ['"%s"' % escape(w) for w in sorted(words)]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{target}.dict").write_text("\n".join(lines) + "\n")


def dictionaries():
    yaml_syntax = (": ", "- ", "{", "}", "[", "]", "\n  ", "&a", "*a", "!!str", "'", "~")
    dictionary("fuzz_config", ["exporter/app/options.cc", "exporter/config/fleet.cc",
                               "exporter/scheduled_probes/probe_runtime.cc",
                               "exporter/collectors/*.cc", "exporter/config/config_node.cc"],
               r'"([a-z][a-z0-9_]{1,40})"', yaml_syntax + ("5m", "250ms", "1h30m", "0x02"))
    dictionary("fuzz_web_config", ["exporter/http/web_config.cc"], r'"([A-Za-z][A-Za-z0-9_$]{1,40})"',
               yaml_syntax + ("$2y$",))
    dictionary("fuzz_state_file", ["exporter/scheduled_probes/result_store.cc"],
               r'"([a-z][a-z0-9_]{1,40})"', yaml_syntax + ("tcp_multi", "rdma", ".nan", ".inf"))
    dictionary("fuzz_control", ["active-probes/control/*.cc", "active-probes/responder/*.cc",
                                "active-probes/tcp/*.cc", "active-probes/rdma/rdma_messages.cc"],
               r'"([A-Za-z][A-Za-z0-9_]{1,30})"', (" ", "=", "\n", "\r\n", "\t"))


def cli():
    c = Corpus("fuzz_cli")
    c.add("--config.file=/etc/fabric.yml\0--no-collector.flows\0--log.level\0debug", 0)
    c.add("--collector.netdev.queue-stats\0--web.listen-address=[::1]:9877\0--help", 0)
    for text in ("5s", "250ms", "1.5s", "256K", "4M", "1,2,4,8"):
        c.add(text, 1)
    for text in ("1G", "30s", "read", "randwrite"):
        c.add(text, 2)
    for text in ("sendfile", "both", "json", "warn"):
        c.add(text, 3)
    for text in ("127.0.0.1:9877", "[::]:9877", ":9877"):
        c.add(text, 4)


for make in (cli, dictionaries, procfs, sysfs, ethtool, flows, collectives, netlink, rdma_netlink,
             control,
             yaml_configs):
    make()
