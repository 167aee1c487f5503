"""This host's RDMA devices, read from sysfs and iproute2: the first active
RoCE port and its interface's IPv4 address (the hardware test and the RDMA
benchmark)."""
import os
import subprocess

IB = "/sys/class/infiniband"


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def first_active_port():
    if not os.path.isdir(IB):
        return None
    for dev in sorted(os.listdir(IB)):
        ports = os.path.join(IB, dev, "ports")
        for port in sorted(os.listdir(ports)) if os.path.isdir(ports) else []:
            base = os.path.join(ports, port)
            if not read(os.path.join(base, "state")).startswith("4"):
                continue
            ndevs = os.path.join(base, "gid_attrs", "ndevs")
            names = {read(os.path.join(ndevs, i)) for i in os.listdir(ndevs)} - {""} \
                if os.path.isdir(ndevs) else set()
            for netdev in sorted(names):
                return dev, int(port), netdev
    return None


def ipv4_of(netdev):
    out = subprocess.run(["ip", "-4", "-o", "addr", "show", "dev", netdev],
                         capture_output=True, text=True).stdout.split()
    for i, w in enumerate(out):
        if w == "inet":
            return out[i + 1].split("/")[0]
    return None
