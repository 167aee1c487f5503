// Every selector and threshold of the rule bundle, in one place. Override in
// your own jsonnet:  (import 'fabric-ladder/rules/mixin/mixin.libsonnet') +
//   { _config+:: { selector: 'job="fabric-exporter"' } }
// Defaults fit a 100-400 GbE RoCE/TCP fabric (the numbers of docs/bottleneck-shapes.md).
{
  _config+:: {
    // Label matchers selecting fabric_exporter series (every rule uses it).
    selector: 'job="fabric"',
    // Prefix of runbook links; each alert appends #<alertname in lower case>.
    runbookBase: 'https://github.com/fabric-ladder/fabric-ladder/blob/main/docs/runbooks.md',

    // PCIe: a fabric NIC's path must carry this fraction of its line rate.
    pcieLineRatio: 0.95,
    // Socket buffers: the tcp_rmem/tcp_wmem max must hold this many BDPs.
    bdpFactor: 1,
    // Shape 2 binds a real transfer: one bulk flow all through transferWindow (single-stream by
    // construction: one ssh, rsync or NFS connection) moving below this fraction of what the
    // multi-stream probe carries on the path. The ceiling alone is a fact, not an alert.
    singleStreamRatio: 0.5,
    // Shape 3: the stream sweep reached this multiple of the configured stream count's result.
    sweepGain: 1.1,
    // A probe thread at this fraction of a core limited its own result (the harness).
    harnessCpuRatio: 0.9,
    // Copy path below this fraction of the sendfile rate (shape 4: 27%).
    copyRatio: 0.5,
    // Buffered / single-file storage below this fraction of direct multi-file.
    bufferedRatio: 0.5,
    singleFileRatio: 0.5,
    // Storage write below this fraction of read on the same directory (shape 7).
    writeReadRatio: 0.4,
    // Storage write below this fraction of the fleet's median write probe.
    writeFleetRatio: 0.25,
    // Real transfers: only judged while they move at least transferMinPathRatio of what their
    // path can carry (the slower end's line rate; where no line rate is known, the path's
    // uncontended multi-stream probe result), and at least transferMinBytesPerSecond (an
    // optional absolute minimum, off by default: the flows collector's bulk threshold already
    // leaves trickles out). Relative, so the field's 2.5 TB restore at 8% of a 25 GB/s line is
    // judged on a 100 GbE NIC, a 400 GbE NIC and a 400 Mbit/s test line alike.
    transferMinPathRatio: 0.01,
    transferMinBytesPerSecond: 0,
    // The page: real transfers below this fraction of the proven TCP ceiling, for
    // transferPageFor (the field's restore took 21 minutes: the page must fire within it).
    transferCriticalRatio: 0.25,
    transferPageFor: '15m',
    // Application gap: one flow below this fraction of the single-stream probe, or a parallel
    // transfer's flows together below this fraction of the multi-stream probe.
    appSingleStreamRatio: 0.5,
    appMultiStreamRatio: 0.6,
    // Applications treated as encrypted bulk transport (shape 8).
    sshApplications: 'ssh|scp|sftp',
    // Real transfers are judged over this window from the flows collector's counters (bytes
    // and limited flow-seconds), so a per-file loop of short connections is one transfer over
    // time and a limiter that alternates between scrapes is judged by its share of time.
    transferWindow: '5m',
    // Shape 9 needs the application itself to have held the flows (not sending, or its
    // receiver not reading) for at least this share of their time in transferWindow.
    appLimitedShare: 0.5,
    // Applications the flows collector names by the process holding the socket when it moves
    // data through userspace read()/write() buffers (shape 4 on a real transfer), and the
    // fraction of raw TCP with as many streams below which such a transfer is named.
    copyApplications: 'socat|netcat|mbuffer',
    copyTransferRatio: 0.5,
    // TX/RX asymmetry: a node's best send over txRxWindow below this fraction of its best
    // receive. A node's transmit side is a property of its hardware and holds in every run; the
    // window (three default 10-minute rounds) keeps one run that shared the host or the path
    // without tripping a self-check from standing for the node.
    txRxRatio: 0.85,
    txRxWindow: '30m',
    // TX pause: a node above this multiple of the fleet median, and above a floor.
    pauseMedianFactor: 10,
    pauseMinPerHour: 500,
    // Retransmit storm: retransmits per second of probe window, and the
    // local/peer line-rate ratio that makes a path speed-mismatched.
    retransmitsPerSecond: 500,
    speedMismatchRatio: 1.5,
    // One path's multi-stream TCP result below this fraction of the fleet's
    // median for the same direction, judged only with at least
    // pathFleetMinPaths uncontended results in that direction (a median of two
    // paths cannot tell which of them is the slow one).
    pathFleetRatio: 0.5,
    pathFleetMinPaths: 3,
    // Receive backpressure (shape 15), over backpressureWindow: TX pause frames, softnet
    // squeezes and retransmits of the probe traffic flowing into the node (counted by its
    // senders), per second of probe window.
    backpressureWindow: '30m',
    backpressurePauseMin: 1000,
    backpressureRetransmitsPerSecond: 1000,
    // Shape 12: a depth-1 run at this latency per I/O or more, with the loaded run at least
    // storageLatencyGain times faster, is latency-bound (more in flight raises throughput).
    storageLatencySeconds: 0.01,
    storageLatencyGain: 3,
    // Probe health.
    // Records without fabric_probe_period_seconds: stale after this age.
    probeStaleSeconds: 3 * 3600,
    // Records with a period: stale after 2 x period + this slack (the round's start
    // offset, one run deferred by the probe budget or a busy peer).
    probeStaleSlackSeconds: 1800,
    probeNeverRanFor: '6h',
    probeFailingFor: '1h',
    collectorFailingFor: '15m',
    exporterDownFor: '5m',
    // Alerts on a probe record's age or verdicts: the record already covers its window.
    probeStaleFor: '0m',
    harnessLimitedFor: '0m',
    causeFor: '15m',
    // Alerts whose expression judges its own window (an increase over backpressureWindow, a
    // probe run's retransmits) fire on the first evaluation that sees it.
    backpressureFor: '0m',
    retransmitStormFor: '0m',
    // Probe results a cause alert or the page divides by: the last uncontended (and clean)
    // result of a rung stays published across contended runs, judged while younger than this.
    probeEvidenceMaxAgeSeconds: 86400,

    // Regressions (issue 14): the baseline is this quantile of the last
    // baselineWindow of clean probe results (cpu_bound/contended runs left out).
    baselineQuantile: 0.9,
    baselineWindow: '7d',
    // A layer regressed when every result of the last regressionRuns runs is
    // more than regressionFraction below its baseline. probeIntervalSeconds is
    // the probe plan's interval (the window is runs x interval).
    regressionFraction: 0.15,
    regressionRuns: 3,
    probeIntervalSeconds: 3600,
    // The long baseline a regression is judged against: the best 7-day baseline of the last
    // longBaselineWindow, sampled every longBaselineStep (the 7-day baseline moves slowly), so
    // a decline slower than the 7-day window, or in steps each under regressionFraction,
    // still reads as one.
    longBaselineWindow: '30d',
    longBaselineStep: '6h',
    // Drift: how far back "what it was" reaches, and how long a change is shown.
    driftLookback: '7d',
    changeShownFor: '1d',
    // Regression and drift alerts: their windows (regressionRuns, changeShownFor) already
    // hold the evidence, so they fire when it is there.
    driftFor: '0m',

    // Storage transfers that are no TCP socket (NFS, NVMe over Fabrics; issue 43): rates over
    // this window, judged while at least transferMinBytesPerSecond moves, against the
    // uncontended RDMA rung of the same path. The field's NFS-over-RDMA writes ran at
    // 14.5 GB/s on a path where RDMA WRITE proved 24.4 GB/s (59%).
    storageTransferRateWindow: '5m',
    storageRdmaRatio: 0.6,
    storageTransferFor: '30m',

    // Collectives (issue 43): NCCL bus bandwidth from the collective collector (NCCL
    // Inspector, nccl-tests) placed on the ladder as the collective rung. Only what crosses
    // nodes (scope="inter_node"), at message sizes where bandwidth, not latency, rules
    // (collectiveJudgedSizes, the collector's buckets), measured within collectiveMaxAge, is
    // judged. An inter-node collective's bus bandwidth is bounded by the node's NIC bandwidth,
    // so a healthy one reaches at least one NIC's RDMA rung (8 rails: near eight of them);
    // below collectiveRdmaRatio of the node's uncontended RDMA rung, NCCL is not moving its
    // bytes over RDMA as the probe did (sockets, GPUDirect off, the wrong HCA).
    collectiveJudgedSizes: '256MiB-4GiB|4GiB\\\\+',
    collectiveMaxAgeSeconds: 86400,
    collectiveRdmaRatio: 0.5,
    collectiveFor: '15m',
    // RDMA port traffic per port, and the same without the RDMA probe's own writes
    // (fabric_probe_spent_rdma_bytes_total), rated over this window (issue 43).
    rdmaTransferRateWindow: '5m',
  },
}
