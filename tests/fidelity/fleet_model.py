"""A model fleet that emits the series fabric_exporter would publish for it.

Scenarios (scenarios.py) describe nodes, paths and probe results in the units of the field
reports (bytes/s, counts per hour); this module turns them into Prometheus series with the
exact names and label sets the exporter produces (tests/golden/*.prom and the probe value
catalogue), as promtool `input_series`. Every series carries job="fabric" and
instance="<node>:9877" as a scrape would add them.

Time runs in steps of `Fleet.step_seconds` from 0; a value may be a constant or a function of
the time in seconds (None: no sample at that time).

Every node runs the latency mesh (on wherever the TCP probe is, docs/probes/mesh.md) to each
other node, up to MESH_MAX_PEERS: 12 probes a minute per path, answered within the node's
`mesh_rtt` unless `mesh_loss[target]` (a fraction, constant or f(t)) says otherwise. A node with
`dies_at` stops answering then: its exporter's series end (only `up` stays, at 0) and every
mesh probe to it is lost.

Every node has a fleet role (`role`, fabric_fleet_node_info's label; compute by default) and
publishes the receive-path facts of its fabric NIC (exporter/collectors/receive_path.cc,
pcie_link_health.cc, the ethtool backend) as the exporter does, with the NIC's role label:
`rx_path` holds them, the same tuned values on every node unless a scenario changes one.
"""
import copy
import math

GB = 1e9
Gbit = 1e9 / 8

# The mesh (exporter/path_mesh): probes per hour per path at the default 5 s interval, the
# default max_peers, and the histogram's bucket bounds (path_stats.h) as the exposition
# writes them.
MESH_PROBES_PER_HOUR = 720
MESH_MAX_PEERS = 16
MESH_BUCKETS = [5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2,
                5e-2, 0.1]

# A tuned ConnectX-6 fabric NIC's receive path (the values of tests/golden/nics.prom's fabric
# NIC, ASPM off as on the field's tuned nodes): what every model node publishes unless a
# scenario sets it apart.
RX_PATH = {
    'numa_node': 0,
    'queues': 8,
    'irqs': 8,
    'irqs_off_node': 0,          # queue IRQs affined to CPUs of another NUMA node only
    'steered_queues': {'rx': 0, 'tx': 8},  # RPS off, XPS on every queue
    'coalesce_usecs': {'rx': 8, 'tx': 16},
    'coalesce_frames': {'rx': 128, 'tx': 32},
    'coalesce_adaptive': {'rx': 1, 'tx': 1},
    'ring_entries': {('rx', 'current'): 1024, ('rx', 'max'): 8192,
                     ('tx', 'current'): 1024, ('tx', 'max'): 8192},
    'pause_enabled': {'rx': 1, 'tx': 1},
    'offload_enabled': {'gro': 1, 'gso': 1, 'lro': 0, 'tso': 1},
    'cpu_governor': ('performance', 1),  # (governor label, code)
    'aspm_policy': ('default', 0),       # (policy label, code)
    'link_aspm_enabled': {'l0s': 0, 'l1': 0},  # the NIC's own link (sysfs link/<state>_aspm)
}

# What a probe rung publishes besides its throughput, and which verdicts it has (the
# `fabric_probe_verdict{verdict}` series exist for each, 0 or 1).
RUNG_VERDICTS = {
    'tcp_multi': ['cpu_bound', 'contended', 'stream_limited', 'receiver_window_limited',
                  'send_buffer_limited'],
    'tcp_single': ['cpu_bound', 'contended', 'stream_limited', 'receiver_window_limited',
                   'send_buffer_limited'],
    'rdma': ['cpu_bound', 'contended', 'stream_limited', 'congested'],
    'storage_read': ['cpu_bound', 'latency_bound'],
    'storage_write': ['cpu_bound', 'latency_bound'],
    # Comparison runs beside the rungs (each its own record).
    'tcp_multi_copy': ['cpu_bound', 'contended', 'stream_limited', 'receiver_window_limited',
                       'send_buffer_limited'],
    'tcp_multi_sweep': ['cpu_bound', 'contended', 'stream_limited'],
    'storage_read_buffered': ['cpu_bound', 'latency_bound'],
    'storage_read_shared_file': ['cpu_bound', 'latency_bound'],
    'storage_read_separate_files': ['cpu_bound', 'latency_bound'],
    'storage_read_depth1': ['cpu_bound', 'latency_bound'],
    'storage_write_depth1': ['cpu_bound', 'latency_bound'],
}


def _fmt(v):
    if v is None:
        return '_'
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(v) if isinstance(v, float) else str(v)


def encode_values(values):
    """promtool's expanding notation for a list of samples: runs of equal values and
    arithmetic progressions are folded ('a+bxn' is n+1 samples)."""
    out = []
    i = 0
    n = len(values)
    while i < n:
        v = values[i]
        if v is None:
            j = i
            while j + 1 < n and values[j + 1] is None:
                j += 1
            out.append('_x%d' % (j - i + 1) if j > i else '_')
            i = j + 1
            continue
        # Longest arithmetic run starting at i.
        j = i
        step = None
        if i + 1 < n and values[i + 1] is not None:
            step = values[i + 1] - v
            j = i + 1
            while (j + 1 < n and values[j + 1] is not None
                   and math.isclose(values[j + 1] - values[j], step, rel_tol=1e-12,
                                    abs_tol=1e-9)):
                j += 1
        if j == i:
            out.append(_fmt(v))
        else:
            sign = '+' if step >= 0 else '-'
            out.append('%s%s%sx%d' % (_fmt(v), sign, _fmt(abs(step)), j - i))
        i = j + 1
    return ' '.join(out)


class Series:
    def __init__(self, name, labels, value):
        self.name = name
        self.labels = labels
        self.value = value  # constant, or f(t_seconds) -> value | None

    def at(self, t):
        return self.value(t) if callable(self.value) else self.value

    def selector(self):
        body = ','.join('%s="%s"' % (k, str(v).replace('"', '\\"'))
                        for k, v in sorted(self.labels.items()))
        return '%s{%s}' % (self.name, body)


def counter(per_hour, start=0.0):
    """A counter that grows by `per_hour` (a constant or f(t)) every hour, linearly."""
    if callable(per_hour):
        # Integrate a piecewise-constant rate over steps of a minute.
        cache = {}

        def value(t):
            key = int(t)
            if key not in cache:
                total, s = start, 0
                while s < t:
                    total += per_hour(s) / 60.0
                    s += 60
                cache[key] = total
            return cache[key]
        return value
    return lambda t: start + per_hour * t / 3600.0


class ProbeResult:
    """One probe record: (rung, target, direction) and what its run measured."""

    def __init__(self, probe, target, direction, throughput, streams=None, verdicts=(),
                 retransmits=0, rtt=None, window=10.0, latency_p50=None, iops=None,
                 extra=None, success=True, reason='', period=600, offset=0, info=None):
        self.probe = probe
        self.target = target
        self.direction = direction
        self.throughput = throughput  # bytes/s, constant or f(t)
        self.streams = streams
        self.verdicts = set(verdicts)  # raised verdicts (constant), or f(t) -> set
        self.retransmits = retransmits
        self.rtt = rtt
        self.window = window
        self.latency_p50 = latency_p50
        self.iops = iops
        self.extra = dict(extra or {})  # value name -> value (catalogue names)
        self.success = success
        self.reason = reason
        self.period = period  # seconds between runs of this record
        self.offset = offset
        self.info = dict(info or {})

    def raised(self, t):
        return self.verdicts(t) if callable(self.verdicts) else self.verdicts


class Flow:
    """A group of real bulk flows, as the flows collector reports them per
    peer x application x limiter."""

    def __init__(self, peer, application, limiter, goodput, flows=1, best=None, retrans_per_hour=0):
        self.peer = peer  # peer node name (the series carry its address)
        self.application = application
        self.limiter = limiter
        self.goodput = goodput  # bytes/s of all flows of the group
        self.flows = flows
        self.best = best if best is not None else (goodput / flows if flows else goodput)
        self.retrans_per_hour = retrans_per_hour


class Node:
    def __init__(self, name, address, line_rate=25 * GB, mtu=9000, interface='ens1f0np0',
                 pcie_current=None, pcie_capable=None, slot_limited=False, downtrained_hops=0,
                 rmem_max=268435456, wmem_max=268435456, tcp_rmem_max=268435456,
                 tcp_wmem_max=268435456, tx_pause_per_hour=15, rx_pause_per_hour=10,
                 squeeze_per_hour=0, retransmits_per_hour=2000, crc_per_hour=0, cpus=2,
                 config_sha='0' * 64, up=True, mesh_rtt=30e-6, dies_at=None, role='compute',
                 expected_mtu=9000, rack=None):
        self.name = name
        # The MTU the fleet config declares for the node (fleet.nodes[].mtu): its
        # fabric_fleet_node_info{expected_mtu}; a path expects the smaller of its two ends'.
        self.expected_mtu = expected_mtu
        self.role = role  # fleet role (fabric_fleet_node_info{role}); None: not configured
        self.rack = rack  # fleet rack (node and peer info {rack}); None: not configured
        self.failing_collectors = set()  # collectors whose every scrape fails
        self.rx_path = copy.deepcopy(RX_PATH)
        self.address = address
        self.line_rate = line_rate  # bytes/s, constant or f(t)
        self.mtu = mtu              # constant or f(t)
        self.interface = interface
        self.pci_address = '0000:3b:00.0'
        # A Gen4 x16 NIC path carries 31.5 GB/s (252 Gb/s).
        self.pcie_current = pcie_current if pcie_current is not None else 31.5076923e9
        self.pcie_capable = pcie_capable if pcie_capable is not None else self.pcie_current
        self.slot_limited = slot_limited
        self.downtrained_hops = downtrained_hops
        self.rmem_max = rmem_max
        self.wmem_max = wmem_max
        self.tcp_rmem_max = tcp_rmem_max
        self.tcp_wmem_max = tcp_wmem_max
        self.tx_pause_per_hour = tx_pause_per_hour
        self.rx_pause_per_hour = rx_pause_per_hour
        self.squeeze_per_hour = squeeze_per_hour
        self.retransmits_per_hour = retransmits_per_hour
        self.crc_per_hour = crc_per_hour
        self.cpus = cpus
        self.config_sha = config_sha
        self.up = up
        self.mesh_rtt = mesh_rtt  # seconds, every answered mesh probe
        self.mesh_loss = {}       # target -> lost fraction of the mesh probes (constant or f(t))
        self.dies_at = dies_at    # seconds: from then on the node answers nothing
        self.results = []        # ProbeResult
        self.paths = {}          # peer -> {'egress_ok': bool|f, 'jumbo_ok': bool|f}
        self.flows = []          # Flow
        self.storage_dir = '/var/lib/fabric-ladder/probe'


def _const_or(v, t):
    return v(t) if callable(v) else v


class Fleet:
    def __init__(self, nodes, hours=2.0, step_seconds=120, mesh_max_peers=MESH_MAX_PEERS):
        self.nodes = {n.name: n for n in nodes}
        self.hours = hours
        self.step_seconds = step_seconds
        self.mesh_max_peers = mesh_max_peers  # the mesh's max_peers (mesh.md)

    def node(self, name):
        return self.nodes[name]

    # Probe results of a healthy tuned 200 GbE fleet (the field ladder): multi-stream TCP
    # 24.8 GB/s, one stream 8.1 GB/s flagged cpu_bound (one core drives it), RDMA 24.4 GB/s.
    def healthy_probes(self, name, tcp_multi=24.6e9, tcp_single=8.1e9, rdma=24.4e9,
                       storage=True, single_verdicts=('cpu_bound',)):
        n = self.nodes[name]
        for peer in self.nodes:
            if peer == name:
                continue
            for direction in ('send', 'receive'):
                n.results.append(ProbeResult('tcp_multi', peer, direction, tcp_multi, streams=8,
                                             retransmits=300, rtt=0.0004))
                n.results.append(ProbeResult('tcp_single', peer, direction, tcp_single,
                                             streams=1, verdicts=single_verdicts,
                                             retransmits=20, rtt=0.0004))
            n.results.append(ProbeResult('rdma', peer, 'send', rdma, streams=4))
            n.paths[peer] = {'egress_ok': True, 'jumbo_ok': True}
        if storage:
            n.results.append(ProbeResult('storage_read', n.storage_dir, '', 10.4e9,
                                         latency_p50=0.0031, iops=9918, period=3600))
            n.results.append(ProbeResult('storage_write', n.storage_dir, '', 6.3e9,
                                         latency_p50=0.0052, iops=6008, period=3600))

    def result(self, name, probe, target, direction):
        for r in self.nodes[name].results:
            if (r.probe, r.target, r.direction) == (probe, target, direction):
                return r
        raise KeyError((name, probe, target, direction))

    # ---- emission ----------------------------------------------------------------------

    def series(self):
        out = []
        for n in self.nodes.values():
            out.extend(self._node_series(n))
        return out

    def _node_series(self, n):
        out = self._live_series(n)
        if n.dies_at is None:
            return out
        # A dead node's exporter is not scraped: its series end, `up` reads 0.
        for ser in out:
            live = ser.value
            if ser.name == 'up':
                ser.value = (lambda t, live=live: 0 if t >= n.dies_at else _const_or(live, t))
            else:
                ser.value = (lambda t, live=live: None if t >= n.dies_at else _const_or(live, t))
        return out

    def mesh_peers(self, name):
        return [p for p in sorted(self.nodes) if p != name][:self.mesh_max_peers]

    def _mesh_loss(self, n, target):
        loss = n.mesh_loss.get(target, 0)
        dies_at = self.nodes[target].dies_at
        if dies_at is None:
            return loss
        return lambda t: 1 if t >= dies_at else _const_or(loss, t)

    def _mesh_series(self, s, n):
        out = []
        for target in self.mesh_peers(n.name):
            key = {'target': target}
            loss = self._mesh_loss(n, target)
            probes = counter(MESH_PROBES_PER_HOUR)
            if callable(loss):
                lost = counter(lambda t, loss=loss: MESH_PROBES_PER_HOUR * loss(t))
            else:
                lost = counter(MESH_PROBES_PER_HOUR * loss)

            def answered(t, probes=probes, lost=lost):
                return probes(t) - lost(t)
            out.append(s('fabric_path_probes_total', key, probes))
            out.append(s('fabric_path_lost_total', key, lost))
            for le in MESH_BUCKETS:
                out.append(s('fabric_path_rtt_seconds_bucket', dict(key, le=repr(le)),
                             answered if n.mesh_rtt <= le else 0))
            out.append(s('fabric_path_rtt_seconds_bucket', dict(key, le='+Inf'), answered))
            out.append(s('fabric_path_rtt_seconds_count', key, answered))
            out.append(s('fabric_path_rtt_seconds_sum', key,
                         lambda t, answered=answered: answered(t) * n.mesh_rtt))
        return out

    def _live_series(self, n):
        base = {'job': 'fabric', 'instance': '%s:9877' % n.name}

        def s(name, labels, value):
            lab = dict(base)
            lab.update(labels)
            return Series(name, lab, value)

        out = [s('up', {}, 1 if n.up else 0)]
        for c in ('flows', 'mesh', 'netdev', 'pcie', 'probes', 'rdma', 'sockbuf', 'softnet',
                  'tcp'):
            out.append(s('fabric_scrape_collector_success', {'collector': c},
                         0 if c in n.failing_collectors else 1))
        out.append(s('fabric_exporter_config_info', {'sha256': n.config_sha}, 1))
        node_info = {'expected_mtu': str(n.expected_mtu), 'fabric_address': n.address,
                     'fabric_interface': n.interface, 'node': n.name}
        if n.role is not None:
            node_info['role'] = n.role
        if n.rack is not None:
            node_info['rack'] = n.rack
        out.append(s('fabric_fleet_node_info', node_info, 1))
        for peer in self.nodes.values():
            if peer.name == n.name:
                continue
            path_mtu = min(n.expected_mtu, peer.expected_mtu)
            peer_info = {'address': peer.address, 'expected_interface': peer.interface,
                         'expected_mtu': str(path_mtu), 'peer': peer.name}
            if peer.rack is not None:
                peer_info['rack'] = peer.rack
            out.append(s('fabric_fleet_peer_info', peer_info, 1))
        dev = {'device': n.interface}
        out.append(s('fabric_netdev_speed_bytes', dev, n.line_rate))
        out.append(s('fabric_netdev_mtu_bytes', dev, n.mtu))
        out.append(s('fabric_netdev_up', dev, 1))
        out.append(s('fabric_netdev_carrier', dev, 1))
        out.append(s('fabric_netdev_info', dict(dev, driver='mlx5_core',
                                                driver_version='6.1.0-18-amd64',
                                                firmware_version='22.39.1002 (MT_0000000436)',
                                                pci_address=n.pci_address), 1))
        # Both pause counters of the fabric NIC, as tests/golden/nics.prom publishes them: the
        # standard stats with the interface's role, the driver's port counters without.
        for direction, per_hour in (('tx', n.tx_pause_per_hour), ('rx', n.rx_pause_per_hour)):
            out.append(s('fabric_netdev_pause_frames_total',
                         dict(dev, direction=direction, role='fabric'), counter(per_hour)))
            out.append(s('fabric_netdev_driver_pause_frames_total',
                         dict(dev, direction=direction), counter(per_hour)))
        out.append(s('fabric_netdev_crc_errors_total', dev, counter(n.crc_per_hour)))
        out.append(s('fabric_netdev_phy_crc_errors_total', dict(dev, direction='rx'),
                     counter(n.crc_per_hour)))
        out.extend(self._rx_path_series(s, n))
        addr = {'address': n.pci_address}
        out.append(s('fabric_pcie_netdev_info', dict(addr, device=n.interface), 1))
        out.append(s('fabric_pcie_path_current_bandwidth_bytes_per_second', addr,
                     n.pcie_current))
        out.append(s('fabric_pcie_path_capable_bandwidth_bytes_per_second', addr,
                     n.pcie_capable))
        out.append(s('fabric_pcie_path_slot_limited', addr, 1 if n.slot_limited else 0))
        out.append(s('fabric_pcie_path_downtrained_hops', addr, n.downtrained_hops))
        out.append(s('fabric_sockbuf_core_rmem_max_bytes', {}, n.rmem_max))
        out.append(s('fabric_sockbuf_core_wmem_max_bytes', {}, n.wmem_max))
        for bound, frac in (('min', None), ('default', None), ('max', 1)):
            rmem = 4096 if bound == 'min' else 131072 if bound == 'default' else n.tcp_rmem_max
            wmem = 4096 if bound == 'min' else 16384 if bound == 'default' else n.tcp_wmem_max
            out.append(s('fabric_sockbuf_tcp_rmem_bytes', {'bound': bound}, rmem))
            out.append(s('fabric_sockbuf_tcp_wmem_bytes', {'bound': bound}, wmem))
        for cpu in range(n.cpus):
            out.append(s('fabric_softnet_time_squeeze_total', {'cpu': str(cpu)},
                         counter(lambda t, n=n: _const_or(n.squeeze_per_hour, t) / n.cpus)
                         if callable(n.squeeze_per_hour)
                         else counter(n.squeeze_per_hour / n.cpus)))
        out.append(s('fabric_tcp_segments_retransmitted_total', {},
                     counter(n.retransmits_per_hour)))
        for r in n.results:
            out.extend(self._result_series(s, r))
        out.extend(self._mesh_series(s, n))
        for peer, p in n.paths.items():
            key = {'probe': 'path', 'target': peer, 'direction': ''}
            out.append(s('fabric_probe_success', key, 1))
            out.append(s('fabric_probe_last_run_timestamp_seconds', key,
                         lambda t: 60 * math.floor(t / 60)))
            out.append(s('fabric_probe_period_seconds', key, 60))
            out.append(s('fabric_probe_egress_matches_expected', key,
                         _bool_series(p['egress_ok'])))
            out.append(s('fabric_probe_jumbo_frames_pass', key, _bool_series(p['jumbo_ok'])))
        sent = {}  # (peer, application, direction) -> the groups' goodput, for the counters
        for f in n.flows:
            peer_addr = self.nodes[f.peer].address
            # The flows collector names a fleet peer as `target` (flows_collector.cc).
            key = {'peer': peer_addr, 'target': f.peer, 'application': f.application,
                   'limiter': f.limiter}
            out.append(s('fabric_flows_bulk_flows', key, f.flows))
            out.append(s('fabric_flows_goodput_bytes_per_second', key, f.goodput))
            out.append(s('fabric_flows_best_flow_goodput_bytes_per_second', key, f.best))
            # Each flow of the group spends every second under its limiter.
            out.append(s('fabric_flows_limited_seconds_total', key, counter(f.flows * 3600)))
            direction = 'receive' if f.limiter == 'remote_sender' else 'send'
            sent.setdefault((f.peer, f.application, direction), []).append(f)
        # Bytes per peer, application and direction, whatever the limiter (one transfer).
        for (peer, application, direction), groups in sent.items():
            key = {'peer': self.nodes[peer].address, 'target': peer,
                   'application': application, 'direction': direction}
            out.append(s('fabric_flows_transferred_bytes_total', key,
                         counter(lambda t, gs=groups: sum(_const_or(g.goodput, t)
                                                          for g in gs) * 3600)))
        return out

    def _rx_path_series(self, s, n):
        """The fabric NIC's receive-path facts, labelled with its role as the exporter labels
        interface series (fabric_netdev_role_info from the fleet config)."""
        rx = n.rx_path
        dev = {'device': n.interface, 'role': 'fabric'}
        out = [s('fabric_netdev_role_info', dict(dev, source='config'), 1)]
        for name in ('numa_node', 'queues', 'irqs', 'irqs_off_node'):
            out.append(s('fabric_netdev_' + name, dev, rx[name]))
        for name in ('steered_queues', 'coalesce_usecs', 'coalesce_frames', 'coalesce_adaptive',
                     'pause_enabled'):
            for direction, v in sorted(rx[name].items()):
                out.append(s('fabric_netdev_' + name, dict(dev, direction=direction), v))
        for (ring, bound), v in sorted(rx['ring_entries'].items()):
            out.append(s('fabric_netdev_ring_entries', dict(dev, ring=ring, bound=bound), v))
        for offload, v in sorted(rx['offload_enabled'].items()):
            out.append(s('fabric_netdev_offload_enabled', dict(dev, offload=offload), v))
        governor, code = rx['cpu_governor']
        out.append(s('fabric_netdev_cpu_governor', dict(dev, governor=governor), code))
        policy, code = rx['aspm_policy']
        out.append(s('fabric_pcie_aspm_policy', {'policy': policy}, code))
        for state, v in sorted(rx['link_aspm_enabled'].items()):
            out.append(s('fabric_pcie_link_aspm_enabled',
                         {'address': n.pci_address, 'state': state}, v))
        return out

    def _result_series(self, s, r):
        key = {'probe': r.probe, 'target': r.target, 'direction': r.direction}

        def ran(t):
            # Runs every `period` seconds from `offset`; a result exists from the first run.
            return t >= r.offset

        def last_run(t):
            if not ran(t):
                return 0
            return r.offset + r.period * math.floor((t - r.offset) / r.period)

        def gated(value):
            return lambda t: (_const_or(value, last_run(t)) if ran(t) and r.success else None)

        # Every record exports its planned period (the stale alert judges against it).
        out = [s('fabric_probe_last_run_timestamp_seconds', key, last_run),
               s('fabric_probe_period_seconds', key, r.period),
               s('fabric_probe_success', key, lambda t: 1 if ran(t) and r.success else 0)]
        if not r.success:
            out.append(s('fabric_probe_failure_info', dict(key, reason=r.reason),
                         lambda t: 1 if ran(t) else None))
            return out
        out.append(s('fabric_probe_throughput_bytes_per_second', key, gated(r.throughput)))
        out.append(s('fabric_probe_window_seconds', key, gated(r.window)))
        if r.streams is not None:
            out.append(s('fabric_probe_streams', key, gated(r.streams)))
        if r.probe.startswith('tcp'):
            out.append(s('fabric_probe_retransmits', key, gated(r.retransmits)))
            if r.rtt is not None:
                out.append(s('fabric_probe_min_rtt_seconds', key, gated(r.rtt)))
        if r.latency_p50 is not None:
            out.append(s('fabric_probe_latency_p50_seconds', key, gated(r.latency_p50)))
        if r.iops is not None:
            out.append(s('fabric_probe_iops', key, gated(r.iops)))
        for name, value in r.extra.items():
            out.append(s('fabric_probe_' + name, key, gated(value)))
        if r.info:
            out.append(s('fabric_probe_info', dict(key, **r.info), gated(1)))
        for verdict in RUNG_VERDICTS[r.probe]:
            out.append(s('fabric_probe_verdict', dict(key, verdict=verdict),
                         lambda t, v=verdict: (1 if v in r.raised(last_run(t)) else 0)
                         if ran(t) else None))
        return out

    # ---- promtool ----------------------------------------------------------------------

    def input_series(self):
        steps = int(self.hours * 3600 / self.step_seconds)
        rows = []
        for ser in self.series():
            values = [ser.at(i * self.step_seconds) for i in range(steps + 1)]
            rows.append({'series': ser.selector(), 'values': encode_values(values)})
        return rows


def _bool_series(v):
    if callable(v):
        return lambda t: 1 if v(t) else 0
    return 1 if v else 0
