// Every alert of the bundle and the bottleneck shape it names, as the label
// `shape` (docs/bottleneck-shapes.md#shape-N), added here so the alert files
// stay as they are. The fleet circuit breaker (fleet.libsonnet) counts nodes
// per shape, and Alertmanager inhibits the per-node alerts of a shape under
// its FabricFleetWideShape (deploy/examples/alertmanager.yml, equal: [shape]).
//
// Values: a shape number as a string; 'instrument' for the instrument's own
// health (a fleet-wide probe or exporter failure is one cause too: a rotated
// secret, a broken package, a monitoring outage); null for an alert that names
// no shape and must never be inhibited by one: the page (a symptom), and
// comparisons that say "this one differs" (a path against its peers, a layer
// against its own baseline, a speed change). Every alert must be listed: an
// alert missing here fails `rules/generate`, so a new alert is classified when
// it is added.
local table = {
  // Shape 1: socket buffers smaller than the bandwidth-delay product.
  FabricSocketBufferBelowBdp: '1',
  FabricSocketBufferReverted: '1',
  // Shape 2: the single-stream TCP ceiling.
  FabricSingleStreamCeiling: '2',
  // Shape 3: a plateau that is the benchmark's stream count.
  FabricProbeStreamLimited: '3',
  // Shape 4: copies through userspace.
  FabricCopyPathGap: '4',
  FabricUserspaceCopyTransfer: '4',
  // Shape 5: buffered reads.
  FabricStorageBufferedReadSlow: '5',
  // Shape 6: parallel readers of one file.
  FabricStorageSingleFileContention: '6',
  // Shape 7: filesystem defaults on the weakest node.
  FabricStorageWriteFarBelowRead: '7',
  FabricStorageWriteBelowFleet: '7',
  // Shape 8: encryption on a trusted path.
  FabricBulkTransferOverSsh: '8',
  // Shape 9: the application protocol's own overhead.
  FabricApplicationProtocolGap: '9',
  // Shape 10: a node that sends slower than it receives.
  FabricTransmitAsymmetry: '10',
  FabricNodeTransmitRegression: '10',
  // Shape 11: a fast sender into a slow receiver.
  FabricRetransmitStormSpeedMismatch: '11',
  // Shape 12: writes bound by latency.
  FabricStorageLatencyBound: '12',
  // Shape 13: the path to a peer is not the fabric path (route, MTU, jumbo frames).
  FabricRouteUnexpectedInterface: '13',
  FabricRouteChangedDevice: '13',
  FabricMtuMismatch: '13',
  FabricNicMtuChanged: '13',
  FabricJumboFramesFailing: '13',
  // Shape 14: a NIC in a slot (or a link) narrower than the card.
  FabricPciePathBelowLineRate: '14',
  FabricNicSlotLimited: '14',
  FabricPcieLinkDowntrained: '14',
  FabricPciePathNarrowerThanBefore: '14',
  FabricPcieLinkUnstable: '14',
  FabricPcieAerCorrectableBurst: '14',
  // Shape 15: the host's receive path pushes back (TX pause frames).
  FabricReceiveBackpressure: '15',
  FabricTxPauseAboveFleetMedian: '15',
  // The facts to check first under it: a NIC whose receive path differs
  // from its peers' (peers.libsonnet).
  FabricReceivePathDiffersFromPeers: '15',
  FabricNfsTransferSizeCapped: '16',
  FabricNfsOverTcpWithRdmaRung: '16',
  FabricStorageTransfersBelowRdma: null,
  // A symptom like it: the collective rung far below the RDMA rung (collectives.libsonnet).
  FabricCollectiveBelowRdma: null,
  // The instrument.
  FabricProbeStale: 'instrument',
  FabricProbeNeverRan: 'instrument',
  FabricProbeFailing: 'instrument',
  FabricProbeHarnessLimited: 'instrument',
  FabricCollectorFailing: 'instrument',
  FabricExporterDown: 'instrument',
  FabricExporterConfigChanged: 'instrument',
  // Fleet membership and reloads (fleet_agreement.libsonnet): the instrument's own config.
  FabricFleetListsDiffer: 'instrument',
  FabricExporterConfigReloadFailed: 'instrument',
  // No shape.
  FabricTransfersFarBelowLadder: null,
  FabricPathFarBelowPeers: null,
  FabricLayerRegression: null,
  FabricNicSpeedChanged: null,
  // The bisection's blame locates a slow path's fault (an end or the way between two
  // racks); the shape, where there is one, is named by its own alert.
  FabricProbeSuspectEnd: null,
  // Link health (link_health.libsonnet): a failing physical link is no
  // bottleneck shape; the others compare a NIC with its past or its peers.
  FabricLinkFlapping: null,
  FabricRdmaLinkUnstable: null,
  FabricPreFecBerAboveBudget: null,
  FabricRateLowAfterFlap: null,
  FabricOffloadDiffersFromPeers: null,
  // The latency mesh (path_mesh.libsonnet): a path losing probes or slower
  // than its own past is a path fault, no bottleneck shape.
  FabricPathLoss: null,
  FabricPathRttJump: null,
  // One node at the end of many lossy paths: a node fault (down, its link or
  // uplink), no bottleneck shape; the breaker must not count it either.
  FabricPathTargetLossy: null,
  FabricPathSourceLossy: null,
  // The breaker itself: its `shape` label comes from the alerts it counts.
  FabricFleetWideShape: 'counted',
};

{
  // What the breaker's description names per shape (the headings of
  // docs/bottleneck-shapes.md, shortened).
  _shapeTitles:: {
    '1': 'socket buffers smaller than the bandwidth-delay product',
    '2': 'the single-stream TCP ceiling',
    '3': 'a plateau that is the benchmark\'s stream count',
    '4': 'copies through userspace defeating zero-copy',
    '5': 'buffered reads far below direct I/O',
    '6': 'parallel readers of one file',
    '7': 'filesystem settings on the receiving nodes',
    '8': 'bulk data over SSH',
    '9': 'the application protocol\'s own overhead',
    '10': 'nodes that send slower than they receive',
    '11': 'fast senders into slower receivers',
    '12': 'storage bound by latency',
    '13': 'paths that are not the fabric path (route, MTU, jumbo frames)',
    '14': 'PCIe paths narrower than the NIC',
    '15': 'receive paths that push back (TX pause)',
    '16': 'storage protocols capped below the RDMA rung (NFS transfer size, transport)',
    instrument: 'the instrument itself (probes or exporters failing)',
  },
  _shapeOf:: table,

  prometheusAlerts+:: {
    local named = std.set([r.alert for g in super.groups for r in g.rules if std.objectHas(r, 'alert')]),
    local stale = std.setDiff(std.set(std.objectFields(table)), named),
    assert stale == [] : 'rules/mixin/shapes.libsonnet lists alerts the bundle does not have: %s' % std.join(', ', stale),
    groups: [
      g {
        rules: [
          if !std.objectHas(r, 'alert') then r
          else
            assert std.objectHas(table, r.alert) :
                   'alert %s has no entry in rules/mixin/shapes.libsonnet: give it its shape (or null)' % r.alert;
            local s = table[r.alert];
            if s == null || s == 'counted' then r
            // The instrument is many mechanisms (probes failing, a collector, an exporter):
            // each instrument alert also names itself, so the breaker counts, and Alertmanager
            // holds back, only alerts of one kind (deploy/examples/alertmanager.yml, equal:
            // [shape, instrument_alert]); a collector failing on one node is not held back
            // under probes failing fleet-wide.
            else if s == 'instrument' then r { labels+: { shape: s, instrument_alert: r.alert } }
            else r { labels+: { shape: s } }
          for r in g.rules
        ],
      }
      for g in super.groups
    ],
  },
}
