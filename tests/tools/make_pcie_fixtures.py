#!/usr/bin/env python3
"""Writes the PCIe fixture trees tests/fixtures/pcie-*/ from the topologies
below: sysfs (devices, bus/pci/devices links, class/net, class/infiniband)
and, where a tree has `dump=True`, the same devices' config space in the
`lspci -xxxx` format libpci's dump method reads. sysfs and config space come
from one description, so they agree the way a real host's do.

Run it after changing a topology, then review the diff and regenerate the
golden files (UPDATE_GOLDEN=1 ctest --test-dir build -R golden).

Usage: tests/tools/make_pcie_fixtures.py [FIXTURES_DIR]
"""
import os
import shutil
import sys

SPEED_CODE = {"2.5": 1, "5.0": 2, "8.0": 3, "16.0": 4, "32.0": 5, "64.0": 6}
PORT_TYPE = {"endpoint": 0, "legacy": 1, "root": 4, "usp": 5, "dsp": 6, "pcie2pci": 7}

AER_CORRECTABLE = ["RxErr", "BadTLP", "BadDLLP", "Rollover", "Timeout", "NonFatalErr",
                   "CorrIntErr", "HeaderOF"]
AER_UNCORRECTABLE = ["Undefined", "DLP", "SDES", "TLP", "FCP", "CmpltTO", "CmpltAbrt", "UnxCmplt",
                     "RxOF", "MalfTLP", "ECRC", "UnsupReq", "ACSViol", "UncorrIntErr", "BlockedTLP",
                     "AtomicOpBlocked", "TLPBlockedErr", "PoisonTLPBlocked"]


def dev(addr, cls, vid, did, **kw):
    d = dict(addr=addr, cls=cls, vid=vid, did=did, parent=None, svid=0, sdid=0, rev=0,
             driver=None, numa="-1", ptype=None, link=None, sysfs_link=None, slot=None, aer=None,
             rootport_aer=None, netdevs=(), ibdevs=(), physfn=None, multifunction=False)
    d.update(kw)
    return d


def gen(speed):
    return f"{speed} GT/s PCIe"


# link = (current speed, current width, max speed, max width), speeds as in SPEED_CODE.
def cx6(addr, parent, cur=("16.0", 16), fn_netdev=None, ib=None, aer=None, **kw):
    return dev(addr, 0x020000, 0x15b3, 0x101b, parent=parent, svid=0x15b3, sdid=0x0007,
               driver="mlx5_core", ptype="endpoint", link=(cur[0], cur[1], "16.0", 16),
               aer=aer or {}, netdevs=(fn_netdev,) if fn_netdev else (),
               ibdevs=(ib,) if ib else (), **kw)


def amd_root_port(addr, max_width=16, cur=("16.0", 16), slot=None, aer=None,
                  rootport_aer=(0, 0, 0)):
    return dev(addr, 0x060400, 0x1022, 0x1483, driver="pcieport", ptype="root",
               link=(cur[0], cur[1], "16.0", max_width), slot=slot, aer=aer,
               rootport_aer=rootport_aer)


def host_bridge(addr, vid=0x1022, did=0x1480):
    return dev(addr, 0x060000, vid, did)


TREES = {
    # A 200 GbE ConnectX-6 (x16) in a CPU root port, trained Gen4 x16: healthy.
    # Its SR-IOV VF is left out by default (collectors.pcie.virtual_functions).
    "pcie-healthy": dict(dump=True, numa="0", devices=[
        host_bridge("0000:40:00.0"),
        amd_root_port("0000:40:01.1", slot=(1, 75)),
        cx6("0000:41:00.0", "0000:40:01.1", fn_netdev="ens1f0np0", ib="mlx5_0",
            multifunction=True),
        cx6("0000:41:00.1", "0000:40:01.1", fn_netdev="ens1f1np1", ib="mlx5_1",
            multifunction=True),
        dev("0000:41:00.2", 0x020000, 0x15b3, 0x101c, parent="0000:40:01.1", driver="mlx5_core",
            ptype="endpoint", link=("16.0", 16, "16.0", 16), physfn="0000:41:00.0"),
    ]),
    # Field shape 14: the same NIC in a chipset slot whose root port is
    # hardwired x4 (LnkCap x4). Capped at Gen4 x4, ~63 Gb/s. Its twin in the
    # CPU's x16 slot is fine.
    "pcie-x4-slot": dict(dump=True, numa="0", devices=[
        host_bridge("0000:00:00.0", 0x8086, 0x4660),
        dev("0000:00:01.0", 0x060400, 0x8086, 0x460d, driver="pcieport", ptype="root",
            link=("16.0", 16, "16.0", 16), slot=(1, 75), rootport_aer=(0, 0, 0)),
        dev("0000:00:1c.0", 0x060400, 0x8086, 0x7ab8, driver="pcieport", ptype="root",
            link=("16.0", 4, "16.0", 4), slot=(4, 25), rootport_aer=(0, 0, 0)),
        cx6("0000:01:00.0", "0000:00:01.0", fn_netdev="enp1s0np0", ib="mlx5_0"),
        cx6("0000:02:00.0", "0000:00:1c.0", cur=("16.0", 4), fn_netdev="enp2s0np0", ib="mlx5_1"),
    ]),
    # A link that trained x8 of x16 (a bad riser): downtrained, with the
    # correctable errors that usually come with it. sysfs only, as a host
    # without CAP_SYS_ADMIN sees it.
    "pcie-downtrained-x8": dict(dump=False, numa="1", devices=[
        host_bridge("0000:c0:00.0"),
        amd_root_port("0000:c0:03.1", aer={"RxErr": 1234, "BadTLP": 56, "BadDLLP": 7},
                      rootport_aer=(1297, 0, 0)),
        cx6("0000:c1:00.0", "0000:c0:03.1", cur=("16.0", 8), fn_netdev="enp193s0f0np0",
            ib="mlx5_0", aer={"RxErr": 1234, "BadTLP": 56, "BadDLLP": 7}),
    ]),
    # A Gen5 ConnectX-7 (InfiniBand, class 0x0207) in a Gen4 root port: it
    # trains Gen4 x16, which is all the port can do. Normal, not a fault.
    "pcie-gen5-in-gen4": dict(dump=True, numa="0", devices=[
        host_bridge("0000:00:00.0"),
        amd_root_port("0000:00:03.1"),
        dev("0000:01:00.0", 0x020700, 0x15b3, 0x1021, parent="0000:00:03.1", svid=0x15b3,
            sdid=0x0041, driver="mlx5_core", ptype="endpoint", link=("16.0", 16, "32.0", 16),
            aer={}, netdevs=("ibp1s0",), ibdevs=("mlx5_0",)),
    ]),
    # A Gen4 switch whose uplink trained x8 of x16: every device below it shares
    # a downtrained hop that is not its own link. The GPU's own link is fine;
    # its path is not.
    "pcie-switch": dict(dump=True, numa="0", devices=[
        host_bridge("0000:00:00.0"),
        amd_root_port("0000:00:01.1"),
        dev("0000:01:00.0", 0x060400, 0x1000, 0xc010, parent="0000:00:01.1", driver="pcieport",
            ptype="usp", link=("16.0", 8, "16.0", 16), aer={"BadTLP": 3}),
        dev("0000:02:00.0", 0x060400, 0x1000, 0xc010, parent="0000:01:00.0", driver="pcieport",
            ptype="dsp", link=("16.0", 16, "16.0", 16), slot=(2, 75)),
        dev("0000:02:01.0", 0x060400, 0x1000, 0xc010, parent="0000:01:00.0", driver="pcieport",
            ptype="dsp", link=("16.0", 4, "16.0", 4), slot=(3, 25)),
        dev("0000:02:02.0", 0x060400, 0x1000, 0xc010, parent="0000:01:00.0", driver="pcieport",
            ptype="dsp", link=("16.0", 16, "16.0", 16), slot=(4, 75)),
        dev("0000:03:00.0", 0x030200, 0x10de, 0x20b5, parent="0000:02:00.0", svid=0x10de,
            sdid=0x1533, driver="nvidia", ptype="endpoint", link=("16.0", 16, "16.0", 16),
            aer={}),
        dev("0000:04:00.0", 0x010802, 0x144d, 0xa80a, parent="0000:02:01.0", svid=0x144d,
            sdid=0xa813, driver="nvme", ptype="endpoint", link=("16.0", 4, "16.0", 4), aer={}),
        cx6("0000:05:00.0", "0000:02:02.0", fn_netdev="enp5s0np0", ib="mlx5_0"),
    ]),
    # What sysfs says when it does not know: an old kernel's "8 GT/s" and
    # "Unknown speed", a link that is down ("Unknown", width 0), a missing
    # max_link_speed, and a conventional PCI NIC behind a PCIe-to-PCI bridge.
    "pcie-link-unknown": dict(dump=False, numa="-1", devices=[
        dev("0000:00:01.0", 0x060400, 0x8086, 0x7ab8, driver="pcieport", ptype="root",
            sysfs_link=("8 GT/s", "16", "8 GT/s", "16")),
        dev("0000:01:00.0", 0x020000, 0x8086, 0x1593, parent="0000:00:01.0", driver="ice",
            ptype="endpoint", sysfs_link=("8 GT/s", "16", "Unknown speed", "16"),
            netdevs=("enp1s0f0",)),
        dev("0000:00:02.0", 0x060400, 0x8086, 0x7ab9, driver="pcieport", ptype="root",
            sysfs_link=("Unknown", "0", "5.0 GT/s PCIe", "4")),
        dev("0000:02:00.0", 0x020000, 0x8086, 0x1521, parent="0000:00:02.0", driver="igb",
            ptype="endpoint", sysfs_link=("Unknown", "0", None, "4")),
        dev("0000:00:03.0", 0x060400, 0x8086, 0x7ab8, driver="pcieport", ptype="root",
            link=("2.5", 1, "8.0", 4)),
        dev("0000:03:00.0", 0x060401, 0x1b21, 0x1080, parent="0000:00:03.0", ptype="pcie2pci",
            link=("2.5", 1, "2.5", 1)),
        dev("0000:04:00.0", 0x020000, 0x8086, 0x100e, parent="0000:03:00.0", driver="e1000",
            netdevs=("ens4",)),
    ]),
}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def symlink(target_abs, link_path):
    os.makedirs(os.path.dirname(link_path), exist_ok=True)
    os.symlink(os.path.relpath(target_abs, os.path.dirname(link_path)), link_path)


def device_dirs(sys_dir, devices):
    by_addr = {d["addr"]: d for d in devices}
    out = {}
    for d in devices:
        chain = [d["addr"]]
        while by_addr[chain[0]]["parent"]:
            chain.insert(0, by_addr[chain[0]]["parent"])
        root = "pci" + chain[0].rsplit(":", 1)[0]
        out[d["addr"]] = os.path.join(sys_dir, "devices", root, *chain)
    return out


def aer_file(names, counts, total_name):
    lines = [f"{n} {counts.get(n, 0)}" for n in names]
    lines.append(f"{total_name} {sum(counts.get(n, 0) for n in names)}")
    return "\n".join(lines) + "\n"


def write_sysfs(sys_dir, tree):
    devices = tree["devices"]
    dirs = device_dirs(sys_dir, devices)
    for d in devices:
        p = dirs[d["addr"]]
        write(os.path.join(p, "class"), f"0x{d['cls']:06x}\n")
        write(os.path.join(p, "vendor"), f"0x{d['vid']:04x}\n")
        write(os.path.join(p, "device"), f"0x{d['did']:04x}\n")
        write(os.path.join(p, "subsystem_vendor"), f"0x{d['svid']:04x}\n")
        write(os.path.join(p, "subsystem_device"), f"0x{d['sdid']:04x}\n")
        write(os.path.join(p, "numa_node"), tree["numa"] + "\n")
        link = d["sysfs_link"]
        if link is None and d["link"] is not None:
            cs, cw, ms, mw = d["link"]
            link = (gen(cs), str(cw), gen(ms), str(mw))
        if link is not None:
            for name, value in zip(("current_link_speed", "current_link_width", "max_link_speed",
                                    "max_link_width"), link):
                if value is not None:
                    write(os.path.join(p, name), value + "\n")
        if d["aer"] is not None:
            write(os.path.join(p, "aer_dev_correctable"),
                  aer_file(AER_CORRECTABLE, d["aer"], "TOTAL_ERR_COR"))
            write(os.path.join(p, "aer_dev_nonfatal"),
                  aer_file(AER_UNCORRECTABLE, {}, "TOTAL_ERR_NONFATAL"))
            write(os.path.join(p, "aer_dev_fatal"), aer_file(AER_UNCORRECTABLE, {}, "TOTAL_ERR_FATAL"))
        if d["rootport_aer"] is not None:
            for name, value in zip(("cor", "nonfatal", "fatal"), d["rootport_aer"]):
                write(os.path.join(p, "aer_rootport_total_err_" + name), f"{value}\n")
        if d["driver"]:
            # The driver directory exists, as in sysfs, so the link resolves
            # (copying a tree with shutil.copytree follows it).
            driver_dir = os.path.join(sys_dir, "bus", "pci", "drivers", d["driver"])
            write(os.path.join(driver_dir, "uevent"), "")
            symlink(driver_dir, os.path.join(p, "driver"))
        if d["physfn"]:
            symlink(dirs[d["physfn"]], os.path.join(p, "physfn"))
        for netdev in d["netdevs"]:
            n = os.path.join(p, "net", netdev)
            speed = {0x1021: "400000", 0x101b: "200000", 0x1593: "100000"}.get(d["did"], "1000")
            write(os.path.join(n, "speed"), speed + "\n")
            write(os.path.join(n, "operstate"), "up\n")
            write(os.path.join(n, "mtu"), "9000\n")
            symlink(n, os.path.join(sys_dir, "class", "net", netdev))
        for ibdev in d["ibdevs"]:
            n = os.path.join(p, "infiniband", ibdev)
            write(os.path.join(n, "node_type"), "1: CA\n")
            symlink(n, os.path.join(sys_dir, "class", "infiniband", ibdev))
        symlink(p, os.path.join(sys_dir, "bus", "pci", "devices", d["addr"]))


def config_space(d, devices):
    cfg = bytearray(256)

    def put(off, value, size):
        cfg[off:off + size] = value.to_bytes(size, "little")

    put(0x00, d["vid"], 2)
    put(0x02, d["did"], 2)
    put(0x04, 0x0406, 2)
    put(0x08, d["rev"] | (d["cls"] << 8), 4)
    bridge = (d["cls"] >> 8) == 0x0604
    put(0x0e, (1 if bridge else 0) | (0x80 if d["multifunction"] else 0), 1)
    if bridge:
        bus = int(d["addr"].split(":")[1], 16)
        below = [int(c["addr"].split(":")[1], 16) for c in subtree(d, devices)]
        put(0x18, bus, 1)
        put(0x19, min(below) if below else 0, 1)
        put(0x1a, max(below) if below else 0, 1)
    else:
        put(0x2c, d["svid"], 2)
        put(0x2e, d["sdid"], 2)
    if d["ptype"] is None or d["link"] is None:
        return cfg
    put(0x06, 0x0010, 2)  # Capabilities list.
    put(0x34, 0x40, 1)
    cs, cw, ms, mw = d["link"]
    ptype = PORT_TYPE[d["ptype"]]
    flags = 0x2 | (ptype << 4) | (0x100 if d["slot"] else 0)
    put(0x40, 0x10, 1)
    put(0x42, flags, 2)
    port_number = int(d["addr"].split(":")[2].split(".")[0], 16)
    put(0x4c, SPEED_CODE[ms] | (mw << 4) | (port_number << 24), 4)
    dl_active = 0x2000 if ptype in (4, 6) else 0
    put(0x52, SPEED_CODE[cs] | (cw << 4) | dl_active, 2)
    if d["slot"]:
        number, watts = d["slot"]
        put(0x54, (watts << 7) | (number << 19), 4)
    vector = sum(1 << i for i in range(1, SPEED_CODE[ms] + 1))
    put(0x6c, vector, 4)
    return cfg


def subtree(d, devices):
    out = []
    for c in devices:
        p = c["parent"]
        while p:
            if p == d["addr"]:
                out.append(c)
                break
            p = next(x for x in devices if x["addr"] == p)["parent"]
    return out


def write_dump(path, tree):
    lines = []
    for d in sorted(tree["devices"], key=lambda d: d["addr"]):
        lines.append(f"{d['addr']} Class {d['cls'] >> 8:04x}: Device {d['vid']:04x}:{d['did']:04x}")
        cfg = config_space(d, tree["devices"])
        for off in range(0, len(cfg), 16):
            lines.append(f"{off:02x}: " + " ".join(f"{b:02x}" for b in cfg[off:off + 16]))
        lines.append("")
    write(path, "\n".join(lines))


CONFIG = """# PCIe fixture tree written by tests/tools/make_pcie_fixtures.py.
collectors:
  pcie:
    pci_ids_file: ../pci.ids
{extra}"""


def main():
    fixtures = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")
    for name, tree in TREES.items():
        root = os.path.join(fixtures, name)
        shutil.rmtree(root, ignore_errors=True)
        write_sysfs(os.path.join(root, "sys"), tree)
        extra = ""
        if tree["dump"]:
            write_dump(os.path.join(root, "lspci-xxxx.txt"), tree)
            extra = "    config_space_dump: lspci-xxxx.txt\n"
        write(os.path.join(root, "fabric_exporter.yml"), CONFIG.format(extra=extra))


if __name__ == "__main__":
    main()
