#!/usr/bin/env python3
"""Writes the recorded RDMA netlink dumps of the `nics` fixture tree.

The bytes are laid out as the kernel's drivers/infiniband/core/nldev.c lays
out its replies (a 6.x kernel): for RDMA_NLDEV_CMD_GET one message per device
(fill_dev_info: index, name, port count, capability flags, firmware, GUIDs,
node type, protocol; 64-bit values padded with RDMA_NLDEV_ATTR_PAD as
nla_put_u64_64bit pads them); for RES_QP_GET and RES_CM_ID_GET one message
per device holding the device handle and a nested table of nested entries in
fill_res_qp_entry / fill_res_cm_id_entry order, then NLMSG_DONE. A device with
no object of the kind answers NLMSG_DONE alone (res_get_common_dumpit cancels
an empty message). Reply headers carry NLM_F_MULTI and the request's sequence
number, as a dump's do.

Run from the repository root; it rewrites tests/fixtures/nics/rdma-netlink/.
"""

import os
import socket
import struct

OUT = "tests/fixtures/nics/rdma-netlink"

# <rdma/rdma_netlink.h>
RDMA_NL_NLDEV = 5
CMD_GET, CMD_RES_QP_GET, CMD_RES_CM_ID_GET = 1, 10, 11
PAD, DEV_INDEX, DEV_NAME, PORT_INDEX, CAP_FLAGS = 0, 1, 2, 3, 4
FW_VERSION, NODE_GUID, SYS_IMAGE_GUID, DEV_NODE_TYPE = 5, 6, 7, 14
RES_QP, RES_QP_ENTRY, RES_LQPN, RES_RQPN, RES_RQ_PSN, RES_SQ_PSN = 19, 20, 21, 22, 23, 24
RES_PATH_MIG_STATE, RES_TYPE, RES_STATE, RES_PID, RES_KERN_NAME = 25, 26, 27, 28, 29
RES_CM_ID, RES_CM_ID_ENTRY, RES_PS, RES_SRC_ADDR, RES_DST_ADDR = 30, 31, 32, 33, 34
RES_CM_IDN, DEV_PROTOCOL = 63, 67
NLMSG_DONE, NLM_F_MULTI = 3, 2
SEQ, PORTID = 1, 2210  # The exporter's socket (its pid, the kernel's first choice).

# enum ib_qp_type / ib_qp_state / rdma_cm_state / rdma_ucm_port_space
SMI, GSI, RC, UD = 0, 1, 2, 4
RESET, INIT, RTS, ERR = 0, 1, 3, 6
CM_LISTEN, CM_CONNECT = 8, 5
PS_TCP = 0x0106


def align4(n):
    return (n + 3) & ~3


class Message:
    """One netlink message body; offsets count from the message start, which
    the kernel's skb puts on an 8-byte boundary."""

    def __init__(self):
        self.body = b""

    def _tail(self):
        return 16 + len(self.body)

    def attr(self, kind, payload):
        length = 4 + len(payload)
        self.body += struct.pack("=HH", length, kind) + payload + b"\0" * (align4(length) - length)

    def u8(self, kind, v):
        self.attr(kind, struct.pack("=B", v))

    def u32(self, kind, v):
        self.attr(kind, struct.pack("=I", v))

    def u64(self, kind, v):
        # nla_put_u64_64bit: a PAD attribute first when the value would sit
        # off an 8-byte boundary.
        if (self._tail() + 4) % 8:
            self.attr(PAD, b"")
        self.attr(kind, struct.pack("=Q", v))

    def string(self, kind, s):
        self.attr(kind, s.encode() + b"\0")

    def nest(self, kind, fill):
        """nla_nest_start_noflag: the nested attributes, no NLA_F_NESTED."""
        start = len(self.body)
        self.body += b"\0\0\0\0"
        fill(self)
        length = len(self.body) - start
        self.body = (self.body[:start] + struct.pack("=HH", length, kind) +
                     self.body[start + 4:])

    def bytes(self, command):
        kind = (RDMA_NL_NLDEV << 10) + command
        return struct.pack("=IHHII", 16 + len(self.body), kind, NLM_F_MULTI, SEQ,
                           PORTID) + self.body


def done():
    return struct.pack("=IHHIIi", 20, NLMSG_DONE, NLM_F_MULTI, SEQ, PORTID, 0)


def sockaddr(address, port):
    """struct __kernel_sockaddr_storage (128 bytes) holding a sockaddr_in/in6."""
    if ":" in address:
        raw = struct.pack("=H", socket.AF_INET6) + struct.pack("!H", port) + b"\0" * 4
        raw += socket.inet_pton(socket.AF_INET6, address) + b"\0" * 4
    else:
        raw = struct.pack("=H", socket.AF_INET) + struct.pack("!H", port)
        raw += socket.inet_pton(socket.AF_INET, address) + b"\0" * 8
    return raw + b"\0" * (128 - len(raw))


def owner(m, o):
    # fill_res_name_pid: a kernel object names its module, a user one its pid.
    if isinstance(o, str):
        m.string(RES_KERN_NAME, o)
    else:
        m.u32(RES_PID, o)


def qp_entry(q):
    def fill(m):
        if q["port"]:
            m.u32(PORT_INDEX, q["port"])
        m.u32(RES_LQPN, q["lqpn"])
        if q["type"] == RC:
            m.u32(RES_RQPN, q.get("rqpn", 0))
            m.u32(RES_RQ_PSN, 0x3a1f20)
        m.u32(RES_SQ_PSN, 0x5c0d11)
        if q["type"] == RC:
            m.u8(RES_PATH_MIG_STATE, 2)  # IB_MIG_ARMED
        m.u8(RES_TYPE, q["type"])
        m.u8(RES_STATE, q["state"])
        owner(m, q["owner"])
    return fill


def cm_entry(c):
    def fill(m):
        if c["port"]:
            m.u32(PORT_INDEX, c["port"])
        if c.get("lqpn"):
            m.u32(RES_LQPN, c["lqpn"])
            m.u8(RES_TYPE, RC)
        m.u32(RES_PS, PS_TCP)
        m.u8(RES_STATE, c["state"])
        m.attr(RES_SRC_ADDR, sockaddr(*c["src"]))
        if c.get("dst"):
            m.attr(RES_DST_ADDR, sockaddr(*c["dst"]))
        m.u32(RES_CM_IDN, c["id"])
        owner(m, c["owner"])
    return fill


# mlx5_0: the RoCE port on ens1f0np0; mlx5_2: the InfiniBand port (ib0).
DEVICES = [
    (1, "mlx5_0", "28.39.1002", 0xb8cef60300a1b2c0, "roce"),
    (3, "mlx5_2", "20.37.1014", 0x0c42a10300d8e1f0, "ib"),
]

QPS = {
    "mlx5_0": [
        dict(port=1, lqpn=1, type=GSI, state=RTS, owner="ib_core"),
        # NFS over RDMA (nconnect=2) to node-b, NVMe over RDMA to node-c.
        dict(port=1, lqpn=264, type=RC, state=RTS, rqpn=1185, owner="rpcrdma"),
        dict(port=1, lqpn=265, type=RC, state=RTS, rqpn=1186, owner="rpcrdma"),
        dict(port=1, lqpn=266, type=RC, state=RTS, rqpn=812, owner="nvme_rdma"),
        # A training job's NCCL QPs: connected out of band, no rdma_cm id.
        dict(port=1, lqpn=300, type=RC, state=RTS, rqpn=1280, owner=31337),
        dict(port=1, lqpn=301, type=RC, state=RTS, rqpn=1281, owner=31337),
        dict(port=1, lqpn=302, type=RC, state=RTS, rqpn=1282, owner=31337),
        dict(port=1, lqpn=303, type=RC, state=RTS, rqpn=1283, owner=31337),
        dict(port=1, lqpn=304, type=RC, state=ERR, rqpn=1284, owner=31337),
        # ib_write_bw -R (rdma_cm) to an address outside the fleet.
        dict(port=1, lqpn=310, type=RC, state=RTS, rqpn=77, owner=7001),
        # The exporter's own RDMA probe QP.
        dict(port=1, lqpn=320, type=RC, state=RTS, rqpn=421, owner=2210),
        # A process that exited between the dump and the comm read.
        dict(port=1, lqpn=330, type=UD, state=RTS, owner=9999),
    ],
    "mlx5_2": [
        dict(port=1, lqpn=0, type=SMI, state=RTS, owner="ib_core"),
        dict(port=1, lqpn=1, type=GSI, state=RTS, owner="ib_core"),
        dict(port=1, lqpn=400, type=UD, state=INIT, owner=31337),
        # Created but never modified: not bound to a port yet.
        dict(port=0, lqpn=401, type=RC, state=RESET, owner=31337),
    ],
}

CM_IDS = {
    "mlx5_0": [
        dict(port=1, id=0, lqpn=264, state=CM_CONNECT, src=("198.18.0.1", 40613),
             dst=("198.18.0.2", 20049), owner="rpcrdma"),
        dict(port=1, id=1, lqpn=265, state=CM_CONNECT, src=("198.18.0.1", 40614),
             dst=("198.18.0.2", 20049), owner="rpcrdma"),
        dict(port=1, id=2, lqpn=266, state=CM_CONNECT, src=("198.18.0.1", 52931),
             dst=("198.18.0.3", 4420), owner="nvme_rdma"),
        dict(port=1, id=5, lqpn=310, state=CM_CONNECT, src=("2001:db8::1", 46200),
             dst=("2001:db8::7", 18515), owner=7001),
        dict(port=1, id=6, state=CM_LISTEN, src=("198.18.0.1", 7471), owner=6110),
    ],
    "mlx5_2": [],
}


def resource_dump(index, name, command, table, entry, objects, fill):
    if not objects:
        return done()
    m = Message()
    m.u32(DEV_INDEX, index)
    m.string(DEV_NAME, name)

    def entries(t):
        for o in objects:
            t.nest(entry, fill(o))
    m.nest(table, entries)
    return m.bytes(command) + done()


def main():
    os.makedirs(OUT, exist_ok=True)
    devices = b""
    for index, name, fw, guid, protocol in DEVICES:
        m = Message()
        m.u32(DEV_INDEX, index)
        m.string(DEV_NAME, name)
        m.u32(PORT_INDEX, 1)  # For CMD_GET: the number of ports.
        m.u64(CAP_FLAGS, 0x1c36c1c26)
        m.string(FW_VERSION, fw)
        m.u64(NODE_GUID, guid)
        m.u64(SYS_IMAGE_GUID, guid)
        m.u8(DEV_NODE_TYPE, 1)  # RDMA_NODE_IB_CA
        m.string(DEV_PROTOCOL, protocol)
        devices += m.bytes(CMD_GET)
    with open(f"{OUT}/devices.nl", "wb") as f:
        f.write(devices + done())
    for index, name, _, _, _ in DEVICES:
        with open(f"{OUT}/{name}.qp.nl", "wb") as f:
            f.write(resource_dump(index, name, CMD_RES_QP_GET, RES_QP, RES_QP_ENTRY, QPS[name],
                                  qp_entry))
        with open(f"{OUT}/{name}.cm_id.nl", "wb") as f:
            f.write(resource_dump(index, name, CMD_RES_CM_ID_GET, RES_CM_ID, RES_CM_ID_ENTRY,
                                  CM_IDS[name], cm_entry))


if __name__ == "__main__":
    main()
