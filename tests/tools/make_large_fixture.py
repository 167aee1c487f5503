#!/usr/bin/env python3
"""Writes a large synthetic host as a fixture tree (proc/ and sys/) for load
and scrape-cost measurements: by default 128 CPUs, 16 ConnectX-7 NICs with 400
driver statistics each (recorded `ethtool` text, as tests/fixtures/nics), 256
PCI devices (8 root complexes, each a root port, a PCIe switch, a GPU, two NICs
and an NVMe drive, plus the host bridges and system functions such hosts list)
and 8 RoCE ports. Everything both fabric_exporter and node_exporter read from
files is there: /proc/net/{dev,softnet_stat,snmp,snmp6,netstat}, the socket
buffer sysctls, /sys/class/net, /sys/class/infiniband, /sys/bus/pci. The tree
is generated at run time (into a temporary directory) and never committed.

The driver statistic names are the recorded ConnectX-6 Dx's
(tests/fixtures/nics/.../ens1f0np0), with more queues, cut at the count asked
for. Values are deterministic (seeded), different per NIC, queue and CPU.

Usage: tests/tools/make_large_fixture.py DIR [--cpus N] [--nics N]
           [--driver-stats N] [--pci-devices N] [--rdma-ports N]
Prints the expected counts (JSON) that tests check the exporter against.
"""
import argparse
import json
import os
import random
import shutil

import make_pcie_fixtures as pcie  # beside this script (its directory is on sys.path)

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")

TEMPLATE_STATS = os.path.join(FIXTURES, "nics", "sys", "class", "net", "ens1f0np0",
                              "ethtool.recorded", "statistics.txt")
RX_QUEUE = ["packets", "bytes", "csum_complete", "csum_none", "gro_packets", "xdp_drop", "wqe_err",
            "buff_alloc_err", "recover"]
TX_QUEUE = ["packets", "bytes", "tso_packets", "csum_partial", "stopped", "dropped", "wake",
            "cqe_err"]
CH_QUEUE = ["events", "poll", "arm", "aff_change"]
IB_COUNTERS = [
    "VL15_dropped", "excessive_buffer_overrun_errors", "link_downed", "link_error_recovery",
    "local_link_integrity_errors", "multicast_rcv_packets", "multicast_xmit_packets",
    "port_rcv_constraint_errors", "port_rcv_data", "port_rcv_errors", "port_rcv_packets",
    "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors",
    "port_xmit_constraint_errors", "port_xmit_data", "port_xmit_discards", "port_xmit_packets",
    "port_xmit_wait", "symbol_error", "unicast_rcv_packets", "unicast_xmit_packets"]
IB_HW_COUNTERS = [
    "duplicate_request", "implied_nak_seq_err", "lifespan", "local_ack_timeout_err",
    "np_cnp_sent", "np_ecn_marked_roce_packets", "out_of_buffer", "out_of_sequence",
    "packet_seq_err", "req_cqe_error", "req_cqe_flush_error", "req_remote_access_errors",
    "req_remote_invalid_request", "resp_cqe_error", "resp_cqe_flush_error",
    "resp_local_length_error", "resp_remote_access_errors", "rnr_nak_retry_err",
    "roce_adp_retrans", "roce_adp_retrans_to", "roce_slow_restart", "roce_slow_restart_cnps",
    "roce_slow_restart_trans", "rp_cnp_handled", "rp_cnp_ignored", "rx_atomic_requests",
    "rx_dct_connect", "rx_icrc_encapsulated", "rx_read_requests", "rx_write_requests"]
NET_STATISTICS = [
    "collisions", "multicast", "rx_bytes", "rx_compressed", "rx_crc_errors", "rx_dropped",
    "rx_errors", "rx_fifo_errors", "rx_frame_errors", "rx_length_errors", "rx_missed_errors",
    "rx_nohandler", "rx_over_errors", "rx_packets", "tx_aborted_errors", "tx_bytes",
    "tx_carrier_errors", "tx_compressed", "tx_dropped", "tx_errors", "tx_fifo_errors",
    "tx_heartbeat_errors", "tx_packets", "tx_window_errors"]
# Root complexes. Each has a switch with a GPU, an NVMe drive and NICs behind
# it; the rest of the PCI functions asked for are root-bus system devices
# (host bridges, IOMMU, USB, ...), as on a real EPYC host.
GROUPS = 8
SYSTEM_CLASSES = [0x060000, 0x080600, 0x080700, 0x130000, 0x088000, 0x0c0330]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def driver_stat_names(count):
    """The recorded ConnectX-6 Dx's global statistics, then per-queue ones."""
    with open(TEMPLATE_STATS) as f:
        names = [line.split(":")[0].strip() for line in f.readlines()[2:] if ":" in line]
    names = names[:names.index("rx0_packets")]
    queue = 0
    while len(names) < count:
        names += [f"rx{queue}_{n}" for n in RX_QUEUE] + [f"tx{queue}_{n}" for n in TX_QUEUE]
        names += [f"ch{queue}_{n}" for n in CH_QUEUE]
        queue += 1
    return names[:count]


def pci_devices(nics, total):
    """The PCI description (make_pcie_fixtures' format) and the NICs in it:
    [(netdev, pci address, RDMA device or None)]."""
    per_group_nics = nics // GROUPS
    # Host bridge, root port, switch upstream port, a downstream port per
    # endpoint, GPU, NVMe drive, NICs.
    fixed = GROUPS * (3 + 2 * (2 + per_group_nics))
    if nics % GROUPS or per_group_nics < 1 or total < fixed:
        raise SystemExit(f"--nics must be a positive multiple of {GROUPS} and --pci-devices at "
                         f"least {fixed}")
    devices, nic_list = [], []
    system_left = total - fixed
    for g in range(GROUPS):
        rb = g * 0x20
        bus = lambda off: f"0000:{rb + off:02x}"  # noqa: E731
        devices.append(pcie.host_bridge(f"{bus(0)}:00.0"))
        rp = f"{bus(0)}:01.1"
        devices.append(pcie.amd_root_port(rp, slot=(g + 1, 75)))
        usp = f"{bus(1)}:00.0"
        devices.append(pcie.dev(usp, 0x060400, 0x1000, 0xc030, parent=rp, driver="pcieport",
                                ptype="usp", link=("16.0", 16, "16.0", 16), aer={}))
        endpoints = 2 + per_group_nics
        for port in range(endpoints):
            devices.append(pcie.dev(f"{bus(2)}:{port:02x}.0", 0x060400, 0x1000, 0xc030,
                                    parent=usp, driver="pcieport", ptype="dsp",
                                    link=("16.0", 16, "16.0", 16)))
        dsp = lambda port: f"{bus(2)}:{port:02x}.0"  # noqa: E731
        devices.append(pcie.dev(f"{bus(3)}:00.0", 0x030200, 0x10de, 0x2335, parent=dsp(0),
                                driver="nvidia", ptype="endpoint", link=("16.0", 16, "16.0", 16),
                                aer={}))
        devices.append(pcie.dev(f"{bus(4)}:00.0", 0x010802, 0x144d, 0xa80a, parent=dsp(1),
                                driver="nvme", ptype="endpoint", link=("16.0", 4, "16.0", 4),
                                aer={}))
        for i in range(per_group_nics):
            n = g * per_group_nics + i
            addr = f"{bus(5 + i)}:00.0"
            netdev = f"ens{n + 1}np0"
            rdma = f"mlx5_{g}" if i == 0 else None
            devices.append(pcie.cx6(addr, dsp(2 + i), fn_netdev=netdev, ib=rdma))
            devices[-1]["did"] = 0x1021  # ConnectX-7: 400 Gb/s in make_pcie_fixtures.
            nic_list.append((netdev, addr, rdma))
        share = system_left // GROUPS + (1 if g < system_left % GROUPS else 0)
        for k in range(share):
            slot, fn = divmod(k, 8)
            devices.append(pcie.dev(f"{bus(0)}:{0x02 + slot:02x}.{fn}",
                                    SYSTEM_CLASSES[k % len(SYSTEM_CLASSES)], 0x1022, 0x14a0 + k))
    assert len(devices) == total, (len(devices), total)
    return devices, nic_list


def net_attributes(path, name, ifindex, rng):
    attrs = {
        "addr_assign_type": "0", "addr_len": "6", "address": f"b8:ce:f6:00:{ifindex:02x}:10",
        "broadcast": "ff:ff:ff:ff:ff:ff", "carrier": "1", "carrier_changes": str(rng.randint(2, 9)),
        "carrier_down_count": "1", "carrier_up_count": "1", "dev_id": "0x0", "dev_port": "0",
        "dormant": "0", "duplex": "full", "flags": "0x1003", "ifalias": "", "ifindex": str(ifindex),
        "iflink": str(ifindex), "link_mode": "0", "mtu": "9000", "name_assign_type": "4",
        "netdev_group": "0", "operstate": "up", "proto_down": "0", "speed": "400000",
        "testing": "0", "tx_queue_len": "1000", "type": "1"}
    for k, v in attrs.items():
        write(os.path.join(path, k), v + "\n")
    stats = {s: rng.randint(0, 1000) for s in NET_STATISTICS}
    stats.update(rx_bytes=rng.randint(10**12, 10**14), tx_bytes=rng.randint(10**12, 10**14),
                 rx_packets=rng.randint(10**9, 10**11), tx_packets=rng.randint(10**9, 10**11))
    for k, v in stats.items():
        write(os.path.join(path, "statistics", k), f"{v}\n")
    return stats


def ethtool_recordings(path, name, pci_addr, stat_names, rng):
    rec = os.path.join(path, "ethtool.recorded")
    write(os.path.join(rec, "driver.txt"),
          f"# ethtool -i {name}\ndriver: mlx5_core\nversion: 6.1.0-18-amd64\n"
          "firmware-version: 28.39.1002 (MT_0000000838)\nexpansion-rom-version: \n"
          f"bus-info: {pci_addr}\nsupports-statistics: yes\nsupports-test: yes\n"
          "supports-eeprom-access: yes\nsupports-register-dump: yes\nsupports-priv-flags: yes\n")
    lines = [f"# ethtool -S {name}", "NIC statistics:"]
    lines += [f"     {s}: {rng.randint(0, 10**12)}" for s in stat_names]
    write(os.path.join(rec, "statistics.txt"), "\n".join(lines) + "\n")
    write(os.path.join(rec, "pause.txt"),
          f"# ethtool --include-statistics -a {name}\nPause parameters for {name}:\n"
          "Autonegotiate:\toff\nRX:\t\ton\nTX:\t\ton\nStatistics:\n"
          f"  tx_pause_frames: {rng.randint(0, 10**6)}\n  rx_pause_frames: {rng.randint(0, 99)}\n")
    write(os.path.join(rec, "channels.txt"),
          f"# ethtool -l {name}\nChannel parameters for {name}:\nPre-set maximums:\nRX:\t\tn/a\n"
          "TX:\t\tn/a\nOther:\t\tn/a\nCombined:\t\t63\nCurrent hardware settings:\nRX:\t\tn/a\n"
          "TX:\t\tn/a\nOther:\t\tn/a\nCombined:\t\t16\n")
    write(os.path.join(rec, "rings.txt"),
          f"# ethtool -g {name}\nRing parameters for {name}:\nPre-set maximums:\nRX:\t\t8192\n"
          "RX Mini:\t\tn/a\nRX Jumbo:\t\tn/a\nTX:\t\t8192\nCurrent hardware settings:\n"
          "RX:\t\t1024\nRX Mini:\t\tn/a\nRX Jumbo:\t\tn/a\nTX:\t\t1024\n")


def rdma_port(sys_dir, ibdev, netdev, pci_dir, rng):
    d = os.path.join(pci_dir, "infiniband", ibdev)
    for k, v in {"node_guid": f"0c42:a103:00f1:{rng.randint(0, 0xffff):04x}",
                 "hca_type": "MT4129", "fw_ver": "28.39.1002", "board_id": "MT_0000000838",
                 "node_type": "1: CA"}.items():
        write(os.path.join(d, k), v + "\n")
    os.symlink(os.path.relpath(pci_dir, d), os.path.join(d, "device"))
    p = os.path.join(d, "ports", "1")
    for k, v in {"rate": "400 Gb/sec (4X NDR)", "state": "4: ACTIVE",
                 "phys_state": "5: LinkUp", "link_layer": "Ethernet",
                 "gid_attrs/ndevs/0": netdev}.items():
        write(os.path.join(p, k), v + "\n")
    for c in IB_COUNTERS:
        write(os.path.join(p, "counters", c), f"{rng.randint(0, 10**12)}\n")
    for c in IB_HW_COUNTERS:
        write(os.path.join(p, "hw_counters", c), f"{rng.randint(0, 10**6)}\n")


def write_proc(proc_dir, cpus, nic_stats, rng):
    net = os.path.join(proc_dir, "net")
    os.makedirs(net)
    for name in ("snmp", "netstat"):
        shutil.copy(os.path.join(FIXTURES, "h200", "proc", "net", name), os.path.join(net, name))
    write(os.path.join(net, "snmp6"), "Ip6InReceives                   \t12\n"
          "Ip6InDelivers                   \t12\nIp6OutRequests                  \t14\n"
          "Icmp6InMsgs                     \t0\nIcmp6OutMsgs                    \t4\n"
          "Udp6InDatagrams                 \t0\nUdp6OutDatagrams                \t0\n")
    # Kernel 6.1's 13 columns: processed, dropped, time_squeeze, 5 zeros,
    # cpu_collision, received_rps, flow_limit_count, backlog_len, cpu index.
    rows = []
    for cpu in range(cpus):
        cols = [rng.randint(10**6, 10**9), rng.randint(0, 50), rng.randint(0, 5000), 0, 0, 0, 0,
                0, 0, rng.randint(0, 1000), rng.randint(0, 10), rng.randint(0, 3), cpu]
        rows.append(" ".join(f"{c:08x}" for c in cols))
    write(os.path.join(net, "softnet_stat"), "\n".join(rows) + "\n")
    dev = ["Inter-|   Receive                                                |  Transmit",
           " face |bytes    packets errs drop fifo frame compressed multicast|"
           "bytes    packets errs drop fifo colls carrier compressed",
           "    lo: 5124 62 0 0 0 0 0 0 5124 62 0 0 0 0 0 0"]
    for name, s in nic_stats:
        dev.append(f"{name:>6}: {s['rx_bytes']} {s['rx_packets']} {s['rx_errors']} "
                   f"{s['rx_dropped']} {s['rx_fifo_errors']} {s['rx_frame_errors']} 0 "
                   f"{s['multicast']} {s['tx_bytes']} {s['tx_packets']} {s['tx_errors']} "
                   f"{s['tx_dropped']} {s['tx_fifo_errors']} {s['collisions']} "
                   f"{s['tx_carrier_errors']} 0")
    write(os.path.join(net, "dev"), "\n".join(dev) + "\n")
    shutil.copytree(os.path.join(FIXTURES, "h200", "proc", "sys"), os.path.join(proc_dir, "sys"))


def generate(root, cpus=128, nics=16, driver_stats=400, pci_devices_total=256, rdma_ports=8):
    """Writes the tree under root (replacing it) and returns the expected
    counts as a dict."""
    if rdma_ports != GROUPS:
        raise SystemExit(f"this layout has one RDMA port per root complex: --rdma-ports {GROUPS}")
    rng = random.Random(20261130)
    shutil.rmtree(root, ignore_errors=True)
    sys_dir, proc_dir = os.path.join(root, "sys"), os.path.join(root, "proc")
    devices, nic_list = pci_devices(nics, pci_devices_total)
    tree = dict(numa="0", devices=devices)
    pcie.write_sysfs(sys_dir, tree)
    pcie.write_dump(os.path.join(root, "lspci-xxxx.txt"), tree)
    dirs = pcie.device_dirs(sys_dir, devices)
    names = driver_stat_names(driver_stats)
    nic_stats = []
    for i, (netdev, addr, ibdev) in enumerate(nic_list):
        path = os.path.join(dirs[addr], "net", netdev)
        os.symlink(os.path.relpath(dirs[addr], path), os.path.join(path, "device"))
        nic_stats.append((netdev, net_attributes(path, netdev, i + 2, rng)))
        ethtool_recordings(path, netdev, addr, names, rng)
        if ibdev:
            rdma_port(sys_dir, ibdev, netdev, dirs[addr], rng)
    lo = os.path.join(sys_dir, "devices", "virtual", "net", "lo")
    net_attributes(lo, "lo", 1, rng)
    os.symlink(os.path.relpath(lo, os.path.join(sys_dir, "class", "net")),
               os.path.join(sys_dir, "class", "net", "lo"))
    write_proc(proc_dir, cpus, nic_stats, rng)
    write(os.path.join(root, "fabric_exporter.yml"),
          "# Written by tests/tools/make_large_fixture.py.\ncollectors:\n  pcie:\n"
          f"    pci_ids_file: {os.path.abspath(os.path.join(FIXTURES, 'pci.ids'))}\n"
          "    config_space_dump: lspci-xxxx.txt\n")
    return {"cpus": cpus, "nics": nics, "driver_stats_per_nic": len(names),
            "pci_devices": len(devices), "rdma_ports": rdma_ports,
            "pcie_endpoints": GROUPS * 2 + nics, "netdevs": [n for n, _, _ in nic_list],
            "rdma_devices": [ib for _, _, ib in nic_list if ib]}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir")
    p.add_argument("--cpus", type=int, default=128)
    p.add_argument("--nics", type=int, default=16)
    p.add_argument("--driver-stats", type=int, default=400)
    p.add_argument("--pci-devices", type=int, default=256)
    p.add_argument("--rdma-ports", type=int, default=8)
    a = p.parse_args()
    print(json.dumps(generate(a.dir, a.cpus, a.nics, a.driver_stats, a.pci_devices, a.rdma_ports),
                     indent=1))


if __name__ == "__main__":
    main()
