"""Scenario fleets built from the field numbers (docs/bottleneck-shapes.md), each with the
complete set of alerts the rule bundle must raise for it.

Every scenario is a function returning (Fleet, expected) where expected is a set of
(alertname, node, target) tuples: `node` is the node the alert names (its instance), `target`
the peer or storage directory when the alert carries one, else None. A shape's fault scenario
expects exactly its own alerts (and the page where the numbers reach it); its near miss and the
healthy fleets expect none, except the instrument alerts their evidence justifies.
"""
from fleet_model import Fleet, Flow, GB, Gbit, Node, ProbeResult

DIR = '/var/lib/fabric-ladder/probe'
A, B, C = 'node-a', 'node-b', 'node-c'


def fleet3(line=25 * GB, **node_args):
    """Three tuned 200 GbE nodes (ConnectX-6, MTU 9000, 25 GB/s line) probing each other."""
    nodes = [Node(A, '198.18.0.1', line_rate=line, **node_args),
             Node(B, '198.18.0.2', line_rate=line, **node_args),
             Node(C, '198.18.0.3', line_rate=line, **node_args)]
    fleet = Fleet(nodes)
    for n in nodes:
        fleet.healthy_probes(n.name)
    return fleet


def set_pair(fleet, sender, receiver, probe, throughput, **attrs):
    """The data flowing sender -> receiver as both ends' records see it: the sender's `send`
    record and the receiver's `receive` record of the same path."""
    for node, target, direction in ((sender, receiver, 'send'), (receiver, sender, 'receive')):
        r = fleet.result(node, probe, target, direction)
        r.throughput = throughput
        for k, v in attrs.items():
            setattr(r, k, v)


SCENARIOS = {}


def scenario(name, shape=None, kind='fault'):
    def register(fn):
        SCENARIOS[name] = {'build': fn, 'shape': shape, 'kind': kind}
        return fn
    return register


# ---- healthy fleets ----------------------------------------------------------------------

@scenario('healthy-idle', kind='healthy')
def healthy_idle():
    # One stream reaches 8.1 GB/s (65 Gb/s) flagged cpu_bound: a property of TCP on this
    # hardware, shown on the ladder, never an alert.
    return fleet3(), set()


@scenario('healthy-loaded', kind='healthy')
def healthy_loaded():
    f = fleet3()
    # node-c runs a parallel bulk mover to node-a (16 streams, 21 GB/s) with retransmits beside
    # near-line throughput; every probe sharing node-c's NIC is flagged contended by one end.
    c, a = f.node(C), f.node(A)
    c.flows.append(Flow(A, 'rsync', 'network', 21e9, flows=16))
    a.flows.append(Flow(C, 'rsync', 'remote_sender', 21e9, flows=16))
    c.retransmits_per_hour = 1384 * 6
    for node in (A, B):
        for direction in ('send', 'receive'):
            r = f.result(node, 'tcp_multi', C, direction)
            r.throughput, r.verdicts = 9.8e9, {'contended'}
            r = f.result(node, 'tcp_single', C, direction)
            r.throughput, r.verdicts = 5.5e9, {'contended', 'cpu_bound'}
        r = f.result(node, 'rdma', C, 'send')
        r.throughput, r.verdicts = 11e9, {'contended'}
    for target in (A, B):
        for direction in ('send', 'receive'):
            r = f.result(C, 'tcp_multi', target, direction)
            r.throughput, r.verdicts = 9.5e9, {'contended'}
            r = f.result(C, 'tcp_single', target, direction)
            r.throughput, r.verdicts = 5.2e9, {'contended', 'cpu_bound'}
        r = f.result(C, 'rdma', target, 'send')
        r.throughput, r.verdicts = 10.5e9, {'contended'}
    # Mixed storage: node-b's NVMe reads 3.1 GB/s, writes 2.2 GB/s.
    f.result(B, 'storage_read', DIR, '').throughput = 3.1e9
    f.result(B, 'storage_write', DIR, '').throughput = 2.2e9
    # The instrument says which results measured a share of the path.
    return f, {('FabricProbeHarnessLimited', n, None) for n in (A, B, C)}


@scenario('mixed-200g-25g', kind='healthy')
def mixed_speeds():
    # Two 200 GbE nodes and two 25 GbE storage nodes; every path reads ~94% of its slower end.
    nodes = [Node(A, '198.18.0.1', line_rate=25 * GB), Node(B, '198.18.0.2', line_rate=25 * GB),
             Node(C, '198.18.0.3', line_rate=3.125 * GB),
             Node('node-d', '198.18.0.4', line_rate=3.125 * GB)]
    f = Fleet(nodes)
    for n in nodes:
        f.healthy_probes(n.name)
    for n in nodes:
        for r in n.results:
            if r.probe in ('tcp_multi', 'tcp_single', 'rdma') and (
                    n.line_rate < 25 * GB or f.node(r.target).line_rate < 25 * GB):
                r.throughput = min(r.throughput, 0.94 * 3.125 * GB)
    return f, set()


@scenario('one-node-cpu-bound', kind='healthy')
def one_node_cpu_bound():
    # node-b's harness runs in a container with a 500m CPU limit: every TCP result it takes
    # part in reads 62.5 Gb/s and flags itself cpu_bound. No cause alert may use them.
    f = fleet3()
    for node in (A, C):
        for direction in ('send', 'receive'):
            r = f.result(node, 'tcp_multi', B, direction)
            r.throughput, r.verdicts = 62.5 * Gbit, {'cpu_bound'}
            r.extra = {'remote_cpu_ratio': 0.98, 'local_cpu_ratio': 0.35}
    for target in (A, C):
        for direction in ('send', 'receive'):
            r = f.result(B, 'tcp_multi', target, direction)
            r.throughput, r.verdicts = 62.5 * Gbit, {'cpu_bound'}
            r.extra = {'local_cpu_ratio': 0.98, 'remote_cpu_ratio': 0.35}
            r = f.result(B, 'tcp_single', target, direction)
            r.throughput, r.verdicts = 4.1e9, {'cpu_bound'}
    # Only the starved node is named, once for its rung.
    return f, {('FabricProbeHarnessLimited', B, None)}


@scenario('send-regressed-over-days', kind='fault')
def send_regression():
    # node-c sent 194 Gb/s at 8 streams for a week, then 149 Gb/s, flagged cpu_bound (the
    # field's unreconciled regression). What the node can do regressed: it must notify, with the
    # verdict. 8 days, hourly probes.
    f = fleet3()
    f.hours, f.step_seconds = 8 * 24, 3600
    drop = 7 * 24 * 3600
    for target in (A, B):
        r = f.result(C, 'tcp_multi', target, 'send')
        r.period = 3600
        r.throughput = lambda t: 24.25e9 if t < drop else 18.6e9
        r.verdicts = lambda t: set() if t < drop else {'cpu_bound', 'stream_limited'}
        r.extra = {'local_cpu_ratio': lambda t: 0.6 if t < drop else 0.97}
    for n in f.nodes.values():
        for r in n.results:
            if r.probe != 'tcp_multi' or n.name != C:
                r.period = 3600
    # It is the shape-10 node: it now also transmits slower than it receives.
    return f, {('FabricNodeTransmitRegression', C, None), ('FabricTransmitAsymmetry', C, None),
               ('FabricLayerRegression', C, A), ('FabricLayerRegression', C, B)}


# ---- shapes ------------------------------------------------------------------------------

@scenario('shape01-socket-buffers', shape=1)
def shape01():
    # node-b's net.core.rmem_max/wmem_max are the 208 KB default (tcp_rmem/tcp_wmem tuned):
    # applications that size their own buffers are capped near 4 Gb/s; 25 GB/s x 0.4 ms RTT
    # needs 10 MB in flight. A transfer node-a -> node-b runs at 0.5 GB/s, window-limited.
    f = fleet3()
    b = f.node(B)
    b.rmem_max = b.wmem_max = 212992
    f.node(A).flows.append(Flow(B, 'nfs', 'receiver_window', 0.5e9, flows=1))
    b.flows.append(Flow(A, 'nfs', 'remote_sender', 0.5e9, flows=1))
    # One NFS connection far below what parallel streams carry: shape 2 too (issue 42 item 10).
    return f, {('FabricSocketBufferBelowBdp', B, None), ('FabricSingleStreamCeiling', A, B),
               ('FabricTransfersFarBelowLadder', A, B), ('FabricTransfersFarBelowLadder', B, A)}


@scenario('shape01-socket-buffers-near-miss', shape=1, kind='near-miss')
def shape01_near():
    f = fleet3()
    b = f.node(B)
    b.rmem_max = b.wmem_max = 16 * 1024 * 1024  # 16 MiB >= 10 MB BDP
    return f, set()


@scenario('shape02-single-stream-transfer', shape=2)
def shape02():
    # An NFS mount (one TCP connection) moves 7.6 GB/s, at the 8.1 GB/s per-stream ceiling and
    # 31% of the 24.6 GB/s the path carries with 8 streams.
    f = fleet3()
    f.node(A).flows.append(Flow(B, 'nfs', 'network', 7.6e9, flows=1))
    f.node(B).flows.append(Flow(A, 'nfs', 'remote_sender', 7.6e9, flows=1))
    return f, {('FabricSingleStreamCeiling', A, B)}


@scenario('shape02-single-stream-transfer-near-miss', shape=2, kind='near-miss')
def shape02_near():
    # The same mount with nconnect=8: 8 flows, 22 GB/s.
    f = fleet3()
    f.node(A).flows.append(Flow(B, 'nfs', 'network', 22e9, flows=8))
    f.node(B).flows.append(Flow(A, 'nfs', 'remote_sender', 22e9, flows=8))
    return f, set()


def plateau(f, per_stream_gbit):
    """Every tcp_multi result is 8 streams x the per-stream ceiling, cpu_bound and
    stream_limited; the sweep reaches 198 Gb/s at 32 streams."""
    for n in f.nodes.values():
        for r in n.results:
            if r.probe == 'tcp_multi':
                r.throughput = 8 * per_stream_gbit * Gbit
                r.verdicts = {'cpu_bound', 'stream_limited'}
                r.extra = {'local_cpu_ratio': 0.97}
                n.results.append(ProbeResult(
                    'tcp_multi_sweep', r.target, r.direction, 198 * Gbit, streams=32,
                    extra={'per_stream_ceiling_bytes_per_second': per_stream_gbit * Gbit},
                    period=24 * 3600))


@scenario('shape03-stream-count-artefact', shape=3)
def shape03():
    # 8 x 14 Gb/s = 112 Gb/s on every path, 56% of line: the harness's stream count, not the
    # fabric. Raising streams to 32 reads 198 Gb/s everywhere.
    f = fleet3()
    plateau(f, 14)
    return f, {('FabricProbeStreamLimited', n, None) for n in (A, B, C)}


@scenario('shape03-stream-count-artefact-near-miss', shape=3, kind='near-miss')
def shape03_near():
    # The same harness on 25 GbE links reads 94% of line: no plateau below line.
    f = fleet3(line=3.125 * GB)
    for n in f.nodes.values():
        for r in n.results:
            if r.probe in ('tcp_multi', 'rdma'):
                r.throughput = 0.94 * 3.125 * GB
            if r.probe == 'tcp_single':
                r.throughput = 0.94 * 3.125 * GB
    return f, set()


def copy_comparison(f, node, peer, ratio, reference=24.6e9):
    # The copy run and its sendfile reference, back to back in the rung's sessions.
    f.node(node).results.append(ProbeResult(
        'tcp_multi_copy', peer, 'send', ratio * reference, streams=8, period=6 * 3600,
        extra={'reference_throughput_bytes_per_second': reference},
        info={'mode': 'copy', 'reference_mode': 'sendfile', 'rung_mode': 'sendfile',
              'block_bytes': '1048576', 'directions': 'one_at_a_time'}))


@scenario('shape04-copy-path', shape=4)
def shape04():
    # Copying through userspace (dd | socat) reaches 27% of the path's sendfile rate.
    f = fleet3()
    copy_comparison(f, A, B, 0.27)
    return f, {('FabricCopyPathGap', A, None)}


@scenario('shape04-copy-path-near-miss', shape=4, kind='near-miss')
def shape04_near():
    f = fleet3()
    copy_comparison(f, A, B, 0.62)
    return f, set()


def storage_comparison(f, node, probe, throughput, **kw):
    f.node(node).results.append(ProbeResult(probe, DIR, '', throughput, period=6 * 3600, **kw))


def buffered_comparison(f, node, ratio, reference=10.4e9):
    # The buffered read and the direct read it took right after itself.
    storage_comparison(f, node, 'storage_read_buffered', ratio * reference,
                       extra={'reference_throughput_bytes_per_second': reference})


@scenario('shape05-buffered-reads', shape=5)
def shape05():
    # Direct I/O reads 10.4 GB/s; the page cache (cp, rsync) 4.2 GB/s: 2.5x.
    f = fleet3()
    buffered_comparison(f, A, 1 / 2.5)
    return f, {('FabricStorageBufferedReadSlow', A, DIR)}


@scenario('shape05-buffered-reads-near-miss', shape=5, kind='near-miss')
def shape05_near():
    f = fleet3()
    buffered_comparison(f, A, 0.7)
    return f, set()


@scenario('shape06-single-file', shape=6)
def shape06():
    # Chunked parallel reads of one file 4.1 GB/s vs the same parallelism over files 10.0.
    f = fleet3()
    storage_comparison(f, A, 'storage_read_shared_file', 4.1e9, streams=8)
    storage_comparison(f, A, 'storage_read_separate_files', 10.0e9, streams=8)
    return f, {('FabricStorageSingleFileContention', A, DIR)}


@scenario('shape06-single-file-near-miss', shape=6, kind='near-miss')
def shape06_near():
    f = fleet3()
    storage_comparison(f, A, 'storage_read_shared_file', 7.0e9, streams=8)
    storage_comparison(f, A, 'storage_read_separate_files', 10.0e9, streams=8)
    return f, set()


@scenario('shape07-filesystem-defaults', shape=7)
def shape07():
    # node-c: ZFS with zstd and direct I/O writes 0.6 GB/s and reads 2.7 GB/s; tuned peers
    # write 6.3 GB/s.
    f = fleet3()
    f.result(C, 'storage_write', DIR, '').throughput = 0.6e9
    f.result(C, 'storage_read', DIR, '').throughput = 2.7e9
    return f, {('FabricStorageWriteFarBelowRead', C, DIR), ('FabricStorageWriteBelowFleet', C, DIR)}


@scenario('shape07-filesystem-defaults-near-miss', shape=7, kind='near-miss')
def shape07_near():
    f = fleet3()
    f.result(C, 'storage_write', DIR, '').throughput = 1.8e9
    f.result(C, 'storage_read', DIR, '').throughput = 2.7e9
    return f, set()


@scenario('shape08-ssh', shape=8)
def shape08():
    # A 2.5 TB restore over rsync+ssh: 1.98 GB/s, one stream, on a path that proved 24.6 GB/s.
    f = fleet3()
    f.node(A).flows.append(Flow(B, 'ssh', 'application', 1.98e9, flows=1))
    f.node(B).flows.append(Flow(A, 'ssh', 'remote_sender', 1.98e9, flows=1))
    # The sender names shape 8; one ssh session is single-stream by construction (shape 2).
    return f, {('FabricBulkTransferOverSsh', A, B), ('FabricSingleStreamCeiling', A, B),
               ('FabricTransfersFarBelowLadder', A, B), ('FabricTransfersFarBelowLadder', B, A)}


@scenario('shape08-ssh-near-miss', shape=8, kind='near-miss')
def shape08_near():
    # Interactive ssh and a small scp: 40 MB/s.
    f = fleet3()
    f.node(A).flows.append(Flow(B, 'ssh', 'application', 40e6, flows=1))
    f.node(B).flows.append(Flow(A, 'ssh', 'remote_sender', 40e6, flows=1))
    return f, set()


@scenario('shape09-application-protocol', shape=9)
def shape09():
    # rsync daemon with 8 streams: 12.9 GB/s, 52% of line, against 24.6 GB/s of raw TCP.
    f = fleet3()
    f.node(A).flows.append(Flow(B, 'rsync', 'application', 12.9e9, flows=8))
    f.node(B).flows.append(Flow(A, 'rsync', 'remote_sender', 12.9e9, flows=8))
    return f, {('FabricApplicationProtocolGap', A, B)}


@scenario('shape09-application-protocol-single', shape=9)
def shape09_single():
    # rsync daemon, one stream: 3 GB/s against 8.1 GB/s of one raw TCP stream; 12% of the
    # path, so the page fires too.
    f = fleet3()
    f.node(A).flows.append(Flow(B, 'rsync', 'application', 3.0e9, flows=1))
    f.node(B).flows.append(Flow(A, 'rsync', 'remote_sender', 3.0e9, flows=1))
    return f, {('FabricApplicationProtocolGap', A, B), ('FabricSingleStreamCeiling', A, B),
               ('FabricTransfersFarBelowLadder', A, B), ('FabricTransfersFarBelowLadder', B, A)}


@scenario('shape09-application-protocol-near-miss', shape=9, kind='near-miss')
def shape09_near():
    # A parallel mover at 75% of the multi-stream rung, and one stream at 78% of a raw stream
    # (26% of the path: above the page's 25%).
    f = fleet3()
    f.node(A).flows.append(Flow(B, 'rsync', 'application', 0.75 * 24.6e9, flows=8))
    f.node(B).flows.append(Flow(A, 'rsync', 'remote_sender', 0.75 * 24.6e9, flows=8))
    f.node(A).flows.append(Flow(C, 'rsync', 'application', 6.3e9, flows=1))
    f.node(C).flows.append(Flow(A, 'rsync', 'remote_sender', 6.3e9, flows=1))
    # Not shape 9; the one stream to C is 26% of what 8 streams carry: shape 2 names it.
    return f, {('FabricSingleStreamCeiling', A, C)}


@scenario('shape10-transmit-asymmetry', shape=10)
def shape10():
    # node-c (lower-clocked cores) sends 148 Gb/s at 8 streams, cpu_bound, while receiving
    # 191+ Gb/s; 3,558 TX pause frames against 15 and 10 on its peers; 48 streams: 195 Gb/s.
    f = fleet3()
    for target in (A, B):
        set_pair(f, C, target, 'tcp_multi', 148 * Gbit, verdicts={'cpu_bound', 'stream_limited'},
                 extra={'local_cpu_ratio': 0.97})
        f.result(target, 'tcp_multi', C, 'receive').extra = {'remote_cpu_ratio': 0.97}
        f.result(C, 'tcp_multi', target, 'receive').throughput = 191 * Gbit
        f.node(C).results.append(ProbeResult('tcp_multi_sweep', target, 'send', 195 * Gbit,
                                             streams=48, period=24 * 3600,
                                             extra={'per_stream_ceiling_bytes_per_second':
                                                    18.5 * Gbit}))
    f.node(C).tx_pause_per_hour = 3558
    # The sweep shows the probe's 8 streams understate node-c's send path, too.
    return f, {('FabricTransmitAsymmetry', C, None), ('FabricTxPauseAboveFleetMedian', C, None),
               ('FabricProbeStreamLimited', C, None)}


@scenario('shape10-transmit-asymmetry-near-miss', shape=10, kind='near-miss')
def shape10_near():
    # 92% of its receive rate, clean: within what paths differ by.
    f = fleet3()
    for target in (A, B):
        set_pair(f, C, target, 'tcp_multi', 0.92 * 24.6e9)
    f.node(C).tx_pause_per_hour = 40
    return f, set()


@scenario('shape11-speed-mismatch', shape=11)
def shape11():
    # A 200G sender into a 25G receiver: 15,400 retransmits per 10 s, fair share.
    nodes = [Node(A, '198.18.0.1'), Node(B, '198.18.0.2'),
             Node(C, '198.18.0.3', line_rate=3.125 * GB)]
    f = Fleet(nodes)
    for n in nodes:
        f.healthy_probes(n.name)
    for n in nodes:
        for r in n.results:
            if r.probe in ('tcp_multi', 'tcp_single', 'rdma') and C in (n.name, r.target):
                r.throughput = min(r.throughput, 0.94 * 3.125 * GB)
    for sender in (A, B):
        r = f.result(sender, 'tcp_multi', C, 'send')
        r.retransmits = 15400
        r = f.result(C, 'tcp_multi', sender, 'receive')
        r.retransmits = 15400
    return f, {('FabricRetransmitStormSpeedMismatch', A, C),
               ('FabricRetransmitStormSpeedMismatch', B, C)}


@scenario('shape11-speed-mismatch-near-miss', shape=11, kind='near-miss')
def shape11_near():
    # The same retransmits between two 200G nodes are a different matter (not this shape);
    # same-speed paths at 25G with a few hundred retransmits are healthy.
    nodes = [Node(A, '198.18.0.1'), Node(B, '198.18.0.2'),
             Node(C, '198.18.0.3', line_rate=3.125 * GB)]
    f = Fleet(nodes)
    for n in nodes:
        f.healthy_probes(n.name)
    for n in nodes:
        for r in n.results:
            if r.probe in ('tcp_multi', 'tcp_single', 'rdma') and C in (n.name, r.target):
                r.throughput = min(r.throughput, 0.94 * 3.125 * GB)
    f.result(A, 'tcp_multi', C, 'send').retransmits = 3000
    return f, set()


@scenario('shape12-latency-bound-writes', shape=12)
def shape12():
    # CephFS on an erasure-coded HDD pool: one writer 13 MB/s at 75 ms per 1 MB I/O
    # (1000/75 x 1 MB); with 32 in flight 143 MB/s.
    f = fleet3()
    w = f.result(A, 'storage_write', DIR, '')
    w.throughput, w.latency_p50 = 143e6, 0.21
    f.result(A, 'storage_read', DIR, '').throughput = 180e6
    storage_comparison(f, A, 'storage_write_depth1', 13.3e6, latency_p50=0.075,
                       verdicts={'latency_bound'})
    return f, {('FabricStorageLatencyBound', A, DIR)}


@scenario('shape12-latency-bound-writes-near-miss', shape=12, kind='near-miss')
def shape12_near():
    # An NVMe drive: one writer 1.1 GB/s (0.9 ms per 1 MB), the loaded run 6.3 GB/s.
    f = fleet3()
    storage_comparison(f, A, 'storage_write_depth1', 1.1e9, latency_p50=0.0009)
    return f, set()


@scenario('shape13-wrong-route', shape=13)
def shape13_route():
    # node-a's routes to its peers sat outside their interface stanza: its traffic leaves
    # through a 10 GbE onboard NIC at 9.4 Gb/s.
    f = fleet3(line=3.125 * GB)
    for n in f.nodes.values():
        for r in n.results:
            if r.probe in ('tcp_multi', 'rdma'):
                r.throughput = 0.94 * 3.125 * GB
    for target in (B, C):
        f.node(A).paths[target]['egress_ok'] = False
        set_pair(f, A, target, 'tcp_multi', 9.4 * Gbit)
        set_pair(f, A, target, 'tcp_single', 9.4 * Gbit)
    return f, {('FabricRouteUnexpectedInterface', A, B), ('FabricRouteUnexpectedInterface', A, C),
               ('FabricPathFarBelowPeers', A, B), ('FabricPathFarBelowPeers', A, C),
               ('FabricPathFarBelowPeers', B, A), ('FabricPathFarBelowPeers', C, A)}


@scenario('shape13-mtu-mismatch', shape=13)
def shape13_mtu():
    # MTU 9000 on the compute nodes, 1500 on the storage node node-c.
    f = fleet3()
    f.node(C).mtu = 1500
    for n in (A, B):
        f.node(n).paths[C]['jumbo_ok'] = False
    for n in (A, B):
        f.node(C).paths[n]['jumbo_ok'] = False
    return f, {('FabricMtuMismatch', A, C), ('FabricMtuMismatch', B, C),
               ('FabricMtuMismatch', C, A), ('FabricMtuMismatch', C, B),
               ('FabricJumboFramesFailing', A, C), ('FabricJumboFramesFailing', B, C),
               ('FabricJumboFramesFailing', C, A), ('FabricJumboFramesFailing', C, B)}


@scenario('shape13-near-miss', shape=13, kind='near-miss')
def shape13_near():
    # Every route on the fabric interface; paths differ by 10% (under the fleet-median rule).
    f = fleet3()
    set_pair(f, A, B, 'tcp_multi', 0.9 * 24.6e9)
    return f, set()


@scenario('shape14-x4-slot', shape=14)
def shape14():
    # node-b's ConnectX-6 (x16 capable) in a chipset slot hardwired x4: 58 Gb/s.
    f = fleet3()
    b = f.node(B)
    b.pcie_current = b.pcie_capable = 7.877e9  # Gen4 x4: 63 Gb/s
    b.slot_limited = True
    for target in (A, C):
        set_pair(f, B, target, 'tcp_multi', 58 * Gbit)
        set_pair(f, target, B, 'tcp_multi', 58 * Gbit)
    # Every path through node-b's NIC is capped (4 of the 6 in each direction), so the fleet
    # median is the capped rate: the PCIe alerts name it, the path comparison cannot.
    return f, {('FabricNicSlotLimited', B, None), ('FabricPciePathBelowLineRate', B, None)}


@scenario('shape14-x4-slot-near-miss', shape=14, kind='near-miss')
def shape14_near():
    # A Gen5 card in a Gen4 x16 slot: 252 Gb/s, enough for 200 GbE; not flagged.
    f = fleet3()
    return f, set()


@scenario('shape15-receive-backpressure', shape=15)
def shape15():
    # Inbound to node-b 194-196 Gb/s with 238,000-280,000 retransmits per 30 s of probing,
    # 20,000-51,000 TX pause frames per run, softnet time_squeeze rising, zero CRC errors.
    # node-b's receive path is set apart from its two compute peers' in the hypotheses the
    # field left untested: every queue IRQ of its fabric NIC affined off the NIC's NUMA node
    # (irqbalance after a BIOS change) and ASPM L1 enabled on the NIC's link.
    f = fleet3()
    b = f.node(B)
    b.tx_pause_per_hour = 6 * 35000
    b.squeeze_per_hour = 1200
    b.rx_path['irqs_off_node'] = 8
    b.rx_path['link_aspm_enabled']['l1'] = 1
    for sender in (A, C):
        set_pair(f, sender, B, 'tcp_multi', 195 * Gbit, retransmits=259000 // 3)
    return f, {('FabricReceiveBackpressure', B, None), ('FabricTxPauseAboveFleetMedian', B, None),
               ('FabricReceivePathDiffersFromPeers', B, None)}


@scenario('shape15-receive-backpressure-near-miss', shape=15, kind='near-miss')
def shape15_near():
    # Pause frames and squeezes without inbound retransmits: flow control doing its job.
    # node-b's receive path differs from its peers' only where it does not set it apart: TX
    # coalescing (no compared fact) and an RX ring of 2048 of 16384 entries, the same fill as
    # the peers' 1024 of 8192.
    f = fleet3()
    b = f.node(B)
    b.tx_pause_per_hour = 400
    b.squeeze_per_hour = 1200
    b.rx_path['coalesce_usecs']['tx'] = 64
    b.rx_path['ring_entries'].update({('rx', 'current'): 2048, ('rx', 'max'): 16384})
    return f, set()


# ---- receive-path peers (issue 26 item 5) -------------------------------------------------
# Peers are the NICs of one role on nodes of one fleet role: storage servers set their receive
# path apart from compute nodes by design (IRQs on the far socket beside the NVMe drives, RPS,
# longer fixed RX coalescing, GRO off, ASPM L1, powersave CPUs) and are compared only with
# each other.

MIXED = ['node-%s' % c for c in 'abcdefg']
STORAGE_NODES = MIXED[4:]


def fleet_mixed_roles():
    """Four compute nodes and three storage servers, all healthy, each role configured
    alike."""
    nodes = [Node(name, '198.18.0.%d' % (i + 1),
                  role='storage' if name in STORAGE_NODES else 'compute')
             for i, name in enumerate(MIXED)]
    fleet = Fleet(nodes)
    for n in nodes:
        fleet.healthy_probes(n.name)
        for r in n.results:
            r.period = 3 * 3600
        if n.role == 'storage':
            rx = n.rx_path
            rx['irqs_off_node'] = 8
            rx['steered_queues']['rx'] = 8
            rx['coalesce_usecs']['rx'] = 64
            rx['coalesce_adaptive']['rx'] = 0
            rx['offload_enabled']['gro'] = 0
            rx['link_aspm_enabled']['l1'] = 1
            rx['cpu_governor'] = ('powersave', 2)
    return fleet


@scenario('receive-path-mixed-node-roles', kind='healthy')
def receive_path_mixed_node_roles():
    # Against the whole fleet the storage servers would be the minority (3 of 7) in every
    # fact; each value is unanimous within its node role: nothing fires.
    return fleet_mixed_roles(), set()


@scenario('receive-path-storage-node-differs', shape=15)
def receive_path_storage_node_differs():
    # node-g, a storage server, keeps a compute node's IRQ placement and GRO on: unlike its two
    # storage peers (though like the four compute nodes), so it is the one named.
    f = fleet_mixed_roles()
    rx = f.node('node-g').rx_path
    rx['irqs_off_node'] = 0
    rx['offload_enabled']['gro'] = 1
    return f, {('FabricReceivePathDiffersFromPeers', 'node-g', None),
               ('FabricOffloadDiffersFromPeers', 'node-g', None)}


# ---- the latency mesh (issue 22: no alert floods) ----------------------------------------
# Six nodes, each probing the five others with the mesh. Bandwidth pairs are measured every
# 3 hours, as at fleet scale, so none runs in the scenario after its first round and the
# mesh is what sees the fault. The fault starts at 100 minutes of 120. The fidelity test
# asserts what fires; which of it Alertmanager holds back (deploy/examples/alertmanager.yml)
# is asserted by tests/rules/alertmanager_test.py against a real Alertmanager.

MESH = ['node-%s' % c for c in 'abcdef']
MESH_FAULT = 100 * 60


def fleet6():
    nodes = [Node(name, '198.18.0.%d' % (i + 1)) for i, name in enumerate(MESH)]
    fleet = Fleet(nodes)
    for n in nodes:
        fleet.healthy_probes(n.name)
        for r in n.results:
            r.period = 3 * 3600
    return fleet


@scenario('mesh-healthy', kind='healthy')
def mesh_healthy():
    return fleet6(), set()


@scenario('mesh-dead-target')
def mesh_dead_target():
    # node-f dies: its five probers lose every probe to it, its exporter is gone. Fired: the
    # per-target alert (naming node-f's exporter from the remembered mapping), the five
    # per-path losses and FabricExporterDown; Alertmanager notifies the per-target one only.
    f = fleet6()
    f.node('node-f').dies_at = MESH_FAULT
    dead = 'node-f'
    return f, ({('FabricPathTargetLossy', dead, dead), ('FabricExporterDown', dead, None)}
               | {('FabricPathLoss', p, dead) for p in MESH if p != dead})


@scenario('mesh-bad-own-uplink')
def mesh_bad_own_uplink():
    # node-f's fabric uplink drops every frame (its exporter is still scraped over the
    # management network): it loses its probes to all five peers, and they lose theirs to it.
    # Fired: the per-source alert, the per-target alert for node-f, ten per-path losses;
    # Alertmanager notifies the per-source one only.
    f = fleet6()
    bad = 'node-f'

    def down(t):
        return 1 if t >= MESH_FAULT else 0
    for p in MESH:
        if p != bad:
            f.node(bad).mesh_loss[p] = down
            f.node(p).mesh_loss[bad] = down
    return f, ({('FabricPathSourceLossy', bad, None), ('FabricPathTargetLossy', bad, bad)}
               | {('FabricPathLoss', bad, p) for p in MESH if p != bad}
               | {('FabricPathLoss', p, bad) for p in MESH if p != bad})


@scenario('mesh-one-lossy-path', kind='near-miss')
def mesh_one_lossy_path():
    # One path drops 2 probes in 12 (17%): that path's alert alone. node-a loses one of its
    # five targets, node-b is lost by one of its five probers.
    f = fleet6()
    f.node('node-a').mesh_loss['node-b'] = lambda t: 2 / 12 if t >= MESH_FAULT else 0
    return f, {('FabricPathLoss', 'node-a', 'node-b')}


# ---- a 1500-byte tier by design (issue 42 item 8) -----------------------------------------
# Three compute nodes at MTU 9000 and two storage nodes whose tier runs 1500 by design; the
# fleet config declares each node's MTU (fleet.nodes[].mtu), so a cross-tier path expects
# 1500 and its path probe's DF echo is 1500 bytes.

MTU_TIER = ['node-%s' % c for c in 'abcde']
MTU_TIER_STORAGE = MTU_TIER[3:]


def fleet_mtu_tiers():
    nodes = []
    for i, name in enumerate(MTU_TIER):
        mtu = 1500 if name in MTU_TIER_STORAGE else 9000
        nodes.append(Node(name, '198.18.0.%d' % (i + 1), mtu=mtu, expected_mtu=mtu,
                          role='storage' if name in MTU_TIER_STORAGE else 'compute'))
    fleet = Fleet(nodes)
    for n in nodes:
        fleet.healthy_probes(n.name)
    return fleet


@scenario('mtu-1500-tier-by-design', kind='healthy')
def mtu_tier_by_design():
    # Every cross-tier path joins a 9000 and a 1500 interface, each as configured: no fault.
    return fleet_mtu_tiers(), set()


@scenario('mtu-1500-tier-node-off-its-config', shape=13)
def mtu_tier_node_off_config():
    # node-c, a compute node declared at 9000, runs 1500: its paths to the other compute nodes
    # fire (MTU and the 9000-byte DF echo both ways); its paths to the 1500-byte tier carry
    # the MTU the config declares for them and stay silent.
    f = fleet_mtu_tiers()
    f.node(C).mtu = 1500
    for n in (A, B):
        f.node(n).paths[C]['jumbo_ok'] = False
        f.node(C).paths[n]['jumbo_ok'] = False
    return f, ({('FabricMtuMismatch', n, t) for n, t in ((A, C), (B, C), (C, A), (C, B))}
               | {('FabricJumboFramesFailing', n, t) for n, t in ((A, C), (B, C), (C, A), (C, B))})


# ---- issue 42: loaded, mixed and larger fleets ------------------------------------------
# The fleet breaker (FabricFleetWideShape) names no node: its expected tuple is
# (alertname, None, 'shape N'). Every fleet below raises exactly its alerts; a loaded healthy
# fleet raises only the instrument's own (which results measured a shared path, and a real
# collector failure), never a cause, symptom or breaker alert.

BREAKER = 'FabricFleetWideShape'
MIXED42 = ['node-%s' % c for c in 'abcdef']
MIXED42_25G = MIXED42[3:]


def fleet_mixed42():
    """Three 200 GbE nodes and three 25 GbE nodes; every path reads 94% of its slower end."""
    nodes = [Node(name, '198.18.0.%d' % (i + 1),
                  line_rate=3.125 * GB if name in MIXED42_25G else 25 * GB)
             for i, name in enumerate(MIXED42)]
    f = Fleet(nodes)
    for n in nodes:
        f.healthy_probes(n.name)
    for n in nodes:
        for r in n.results:
            if r.probe in ('tcp_multi', 'tcp_single', 'rdma') and (
                    n.name in MIXED42_25G or r.target in MIXED42_25G):
                r.throughput = min(r.throughput, 0.94 * 3.125 * GB)
    return f


@scenario('loaded-mixed-200g-25g', kind='healthy')
def loaded_mixed():
    # Real transfers beside the probes: node-a moves 21 GB/s to node-b (16 rsync streams) and
    # node-d 2.9 GB/s to node-e (8 streams, the 25 GbE line). Every probe record with a loaded
    # end (a, b, d or e) moved less than the path and flags itself contended: every node, six
    # of six, has contended results (FabricProbeHarnessLimited, verdict="contended", info).
    # That is a property of the moment: no breaker, so node-f's failing rdma collector is
    # notified, not held back under a breaker for "the instrument" (before: it was).
    f = fleet_mixed42()
    loaded = {'node-a', 'node-b', 'node-d', 'node-e'}
    for sender, receiver, goodput, flows in (('node-a', 'node-b', 21e9, 16),
                                             ('node-d', 'node-e', 2.9e9, 8)):
        f.node(sender).flows.append(Flow(receiver, 'rsync', 'network', goodput, flows=flows))
        f.node(receiver).flows.append(Flow(sender, 'rsync', 'remote_sender', goodput,
                                           flows=flows))
    for n in f.nodes.values():
        for r in n.results:
            if r.probe in ('tcp_multi', 'tcp_single', 'rdma') and (
                    n.name in loaded or r.target in loaded):
                r.throughput *= 0.45
                r.verdicts = set(r.verdicts) | {'contended'}
    f.node('node-f').failing_collectors.add('rdma')
    return f, ({('FabricProbeHarnessLimited', n, None) for n in MIXED42}
               | {('FabricCollectorFailing', 'node-f', None)})


@scenario('loaded-mixed-200g-25g-quiet', kind='healthy')
def loaded_mixed_quiet():
    # The same loaded fleet with every collector working: only which results shared a path.
    f, expected = loaded_mixed()
    f.node('node-f').failing_collectors.clear()
    return f, expected - {('FabricCollectorFailing', 'node-f', None)}


RACKS16 = ['node-%02d' % i for i in range(1, 17)]


def fleet16():
    """16 tuned 200 GbE nodes in 4 racks of 4 (r1: node-01..04, ...), for an hour. As at
    fleet scale, each node's bandwidth probes pair it with a bounded set of peers (the next
    node of its rack and its neighbour in the next rack), every 3 hours (none runs again within
    the scenario), and the latency mesh is bounded to 4 peers (mesh.max_peers; promtool's
    sample limit would not hold the full mesh's histograms either)."""
    nodes = [Node(name, '198.18.1.%d' % (i + 1), rack='r%d' % (i // 4 + 1))
             for i, name in enumerate(RACKS16)]
    f = Fleet(nodes, hours=1.0, mesh_max_peers=4)
    for i, n in enumerate(nodes):
        f.healthy_probes(n.name, storage=False)
        peers = {RACKS16[i // 4 * 4 + (i + 1) % 4], RACKS16[(i + 4) % 16]}
        n.results = [r for r in n.results if r.target in peers]
        n.paths = {p: v for p, v in n.paths.items() if p in peers}
        for r in n.results:
            r.period = 3 * 3600
    return f


def buffers_at_default(f, names):
    # net.core.rmem_max/wmem_max left at the 208 KB default (shape 1's field case).
    for name in names:
        n = f.node(name)
        n.rmem_max = n.wmem_max = 212992


@scenario('racks16-healthy', kind='healthy')
def racks16_healthy():
    return fleet16(), set()


@scenario('racks16-one-node-shape', shape=1)
def racks16_one():
    # One node of 16 with its socket buffers at the default: its own alert, no breaker
    # (1 of 16 is no shared cause).
    f = fleet16()
    buffers_at_default(f, ['node-06'])
    return f, {('FabricSocketBufferBelowBdp', 'node-06', None)}


@scenario('racks16-ten-nodes-shape', shape=1)
def racks16_ten():
    # An image with the default buffers rolled out to ten nodes across all four racks: ten
    # per-node alerts and one breaker naming shape 1 (10 > 0.3 x 16 and >= 5); Alertmanager
    # holds the ten back under it (tests/rules/alertmanager_test.py).
    f = fleet16()
    ten = RACKS16[:10]
    buffers_at_default(f, ten)
    return f, ({('FabricSocketBufferBelowBdp', n, None) for n in ten}
               | {(BREAKER, None, 'shape 1')})


@scenario('send-declined-over-four-weeks', kind='fault')
def send_declined_four_weeks():
    # node-c sent 194 Gb/s at 8 streams; four weeks later 149 Gb/s (the field's unreconciled
    # regression), reached down a straight line from day 7 to day 28, then held to day 35. The
    # 7-day baseline trails such a decline by ~8%, so nothing fired; the long baseline (the
    # best 7-day baseline of 30 days) keeps the 194. Receiving stays at 196.8 Gb/s: it is also
    # the shape-10 node by then. Hourly probes, hourly evaluation.
    f = fleet3()
    f.hours, f.step_seconds = 35 * 24, 3600
    start, end = 7 * 24 * 3600, 28 * 24 * 3600
    high, low = 24.25e9, 18.625e9

    def declining(t):
        if t <= start:
            return high
        if t >= end:
            return low
        return high - (high - low) * (t - start) / (end - start)
    for n in f.nodes.values():
        for r in n.results:
            r.period = 3600
    for target in (A, B):
        f.result(C, 'tcp_multi', target, 'send').throughput = declining
    return f, {('FabricLayerRegression', C, A), ('FabricLayerRegression', C, B),
               ('FabricNodeTransmitRegression', C, None), ('FabricTransmitAsymmetry', C, None)}
