// Probes: the active probes' results over time, their per-stream spread, the
// stream sweep, the self-check verdicts, failures and staleness.
local g = import '../lib/grafana.libsonnet';
local c = import 'common.libsonnet';

local psel = c.sel + ', probe=~"$probe", target=~"$target"';
local probeVar = g.queryVariable(
  'probe', 'Probe', 'label_values(fabric_probe_last_run_timestamp_seconds{job=~"$job", instance=~"$instance"}, probe)'
);
local targetVar = g.queryVariable(
  'target', 'Target', 'label_values(fabric_probe_last_run_timestamp_seconds{job=~"$job", instance=~"$instance", probe=~"$probe"}, target)'
);
local flagged = { '0': ['ok', 'green'], '1': ['flagged', 'red'] };
// Comparison runs: their own probe records beside the rungs (each rotates over rounds or, for
// the sweep, runs when a multi-stream result asks for it), never ladder layers.
local csel = c.sel + ', target=~"$target"';
local comparisons = 'tcp_multi_copy|tcp_multi_sweep|storage_read_buffered|storage_read_shared_file|storage_read_separate_files|storage_read_depth1|storage_write_depth1';
local tput(probe) = 'fabric_probe_throughput_bytes_per_second{%s, probe=~"%s"}' % [csel, probe];
// A comparison run over the reference it measured back to back in its own slot.
local overReference(probe) = '%s / on (instance, probe, target, direction) fabric_probe_reference_throughput_bytes_per_second{%s, probe="%s"}' % [tput(probe), csel, probe];
local cfg = c.config;

g.dashboard(
  'fabric-ladder-probes',
  'Fabric probes',
  'The active probes of fabric_exporter (RDMA write, N-stream and 1-stream TCP, storage read/write, path checks): results over time, per-stream spread, stream sweeps, the comparison runs beside the rungs, self-check verdicts, failures and staleness.',
  [
    g.row('Results'),
    g.timeseries(
      'Probe throughput history',
      'Throughput of each probe run per target and direction (the value holds until the next run). Runs flagged cpu_bound or contended measured the harness, not the path: see the verdicts below.',
      [g.target('fabric_probe_throughput_bytes_per_second{%s}' % psel, '{{instance}} {{probe}} → {{target}} {{direction}}')],
      'Bps', w=24, h=9,
    ),
    g.table(
      'Per-stream spread',
      'Slowest, median and fastest stream of each multi-stream run, and the spread (fastest minus slowest over fastest). A wide spread means streams hashed onto unequal queues, lanes or cores.',
      [
        g.target('fabric_probe_stream_min_bytes_per_second{%s}' % psel, instant=true, table=true),
        g.target('fabric_probe_stream_median_bytes_per_second{%s}' % psel, instant=true, table=true),
        g.target('fabric_probe_stream_max_bytes_per_second{%s}' % psel, instant=true, table=true),
        g.target('(fabric_probe_stream_max_bytes_per_second{%s} - fabric_probe_stream_min_bytes_per_second{%s}) / fabric_probe_stream_max_bytes_per_second{%s}' % [psel, psel, psel], instant=true, table=true),
        g.target('fabric_probe_streams{%s}' % psel, instant=true, table=true),
      ],
      'Bps',
      g.joinTables({ Time: null, job: null, 'Value #A': 'slowest', 'Value #B': 'median', 'Value #C': 'fastest', 'Value #D': 'spread', 'Value #E': 'streams' }),
      w=14, h=9,
    ) + g.fieldUnit('spread', 'percentunit') + g.fieldUnit('streams', 'short'),
    g.table(
      'Stream sweep',
      'Runs that swept the stream count: the count after which aggregate throughput stopped growing, and the best single-stream throughput seen. When the saturating count is 1, one stream already fills the path.',
      [
        g.target('fabric_probe_saturating_streams{%s}' % psel, instant=true, table=true),
        g.target('fabric_probe_per_stream_ceiling_bytes_per_second{%s}' % psel, instant=true, table=true),
      ],
      'short',
      g.joinTables({ Time: null, job: null, 'Value #A': 'saturating streams', 'Value #B': 'per-stream ceiling' }),
      w=10, h=9,
    ) + g.fieldUnit('per-stream ceiling', 'Bps'),

    g.row('Comparison runs'),
    g.barGauge(
      'Comparison runs against their rung',
      'Each comparison run over what it is compared with, as the alerts compare them: copy-mode streams over the sendfile run taken back to back with them in the same sessions and block size as the rung (FabricCopyPathGap below %g%%), buffered over the direct-I/O read taken right after them (FabricStorageBufferedReadSlow below %g%%), one shared file over one file per job (FabricStorageSingleFileContention below %g%%), the configured stream count over the stream sweep\'s best (FabricProbeStreamLimited when the sweep reached %gx more and the result was stream_limited), one I/O in flight over the loaded rung (FabricStorageLatencyBound below 1/%g at %gs or more per I/O).' % [100 * cfg.copyRatio, 100 * cfg.bufferedRatio, 100 * cfg.singleFileRatio, cfg.sweepGain, cfg.storageLatencyGain, cfg.storageLatencySeconds],
      [
        g.target(overReference('tcp_multi_copy'), '{{instance}} → {{target}} {{direction}}: copy / sendfile', instant=true),
        g.target(overReference('storage_read_buffered'), '{{instance}} {{target}}: buffered / direct', instant=true),
        g.target('max by (instance, target) (%s) / max by (instance, target) (%s)' % [tput('storage_read_shared_file'), tput('storage_read_separate_files')], '{{instance}} {{target}}: one file / separate files', instant=true),
        g.target('max by (instance, target, direction) (%s) / max by (instance, target, direction) (%s)' % [tput('tcp_multi'), tput('tcp_multi_sweep')], '{{instance}} → {{target}} {{direction}}: configured streams / sweep', instant=true),
        g.target('label_replace(max by (instance, target, probe) (%s), "rung", "$1", "probe", "(storage_(?:read|write))_depth1") / on (instance, target, rung) group_left () label_replace(max by (instance, target, probe) (%s), "rung", "$1", "probe", "(.+)")' % [tput('storage_(read|write)_depth1'), tput('storage_(read|write)')], '{{instance}} {{target}}: {{probe}} / loaded', instant=true),
      ],
      'percentunit', w=12, h=10,
    ) + g.minMax(0, 1) + g.thresholds([[null, 'red'], [0.5, 'orange'], [0.9, 'green']]),
    g.table(
      'Comparison runs',
      'The latest result of each comparison run: throughput, streams or jobs, median latency per I/O (depth-1 runs) and how long ago it ran. They rotate over rounds (the sweep runs when a multi-stream result is stream_limited or cpu_bound), so hours between runs are their schedule, not staleness.',
      [
        g.target(tput(comparisons), instant=true, table=true),
        g.target('fabric_probe_streams{%s, probe=~"%s"}' % [csel, comparisons], instant=true, table=true),
        g.target('fabric_probe_latency_p50_seconds{%s, probe=~"%s"}' % [csel, comparisons], instant=true, table=true),
        g.target('time() - fabric_probe_last_run_timestamp_seconds{%s, probe=~"%s"} > 0' % [csel, comparisons], instant=true, table=true),
      ],
      'Bps',
      g.joinTables({ Time: null, job: null, 'Value #A': 'throughput', 'Value #B': 'streams', 'Value #C': 'latency p50', 'Value #D': 'age' }),
      w=12, h=10,
    ) + g.fieldUnit('streams', 'short') + g.fieldUnit('latency p50', 's') + g.fieldUnit('age', 's'),

    g.row('Self-checks'),
    g.table(
      'Self-check verdicts',
      'One row per probe run (instance, probe, target, direction), one column per self-check: cpu_bound (the probe saturated its own CPU), contended (other traffic shared the NIC during the window), stream_limited (more streams would have gone faster), and the probe-specific ones (receiver_window_limited, send_buffer_limited, latency_bound, congested). A flagged run is not a property of the path.',
      [g.target('label_join(fabric_probe_verdict{%s}, "run", " ", "instance", "probe", "target", "direction")' % psel, instant=true, table=true)],
      'short',
      [{ id: 'groupingToMatrix', options: { rowField: 'run', columnField: 'verdict', valueField: 'Value', emptyValue: 'null' } }],
      w=14, h=9,
    ) + g.mappings(flagged) + { fieldConfig+: { defaults+: { custom: { cellOptions: { type: 'color-background' } } } } },
    g.barGauge(
      'Harness load of TCP runs',
      'CPU time of the probe threads on this side and on the responder per second of window (1 = one core). Near 1 the probe measured its own CPU (cpu_bound).',
      [
        g.target('fabric_probe_local_cpu_ratio{%s}' % psel, '{{instance}} {{probe}} → {{target}} {{direction}} local', instant=true),
        g.target('fabric_probe_remote_cpu_ratio{%s}' % psel, '{{instance}} {{probe}} → {{target}} {{direction}} remote', instant=true),
      ],
      'percentunit', w=10, h=9,
    ) + g.minMax(0, 1) + g.thresholds([[null, 'green'], [0.8, 'orange'], [0.95, 'red']]),

    g.row('Health'),
    g.table(
      'Last run, success and staleness',
      'Per probe and target: when it last ran, how long ago, whether it succeeded and why not. A scheduled rung or path check older than %ds fires FabricProbeStale (comparison runs have their own schedule).' % c.config.probeStaleSeconds,
      [
        g.target('time() - fabric_probe_last_run_timestamp_seconds{%s} > 0' % psel, instant=true, table=true),
        g.target('fabric_probe_success{%s}' % psel, instant=true, table=true),
        g.target('fabric_probe_run_duration_seconds{%s}' % psel, instant=true, table=true),
      ],
      's',
      g.joinTables({ Time: null, job: null, 'Value #A': 'age', 'Value #B': 'succeeded', 'Value #C': 'run duration' }),
      w=14, h=9,
    ) + g.fieldUnit('succeeded', 'bool_yes_no')
    + { fieldConfig+: { overrides+: [{
      matcher: { id: 'byName', options: 'age' },
      properties: [{ id: 'thresholds', value: { mode: 'absolute', steps: [{ value: null, color: 'green' }, { value: c.config.probeStaleSeconds, color: 'red' }] } }],
    }] } },
    g.table(
      'Failures',
      'The reason of each failing probe (unreachable, busy, timeout, refused, ...): the last run of that probe and target failed.',
      [g.target('fabric_probe_failure_info{%s} == 1' % psel, instant=true, table=true)],
      'short',
      [g.organize({ Time: null, Value: null, __name__: null, job: null })],
      w=10, h=9,
    ),
    g.timeseries(
      'Runs and skips',
      'Probe runs per hour by outcome (success, failure, busy, timeout) and skips by reason (fabric_busy: real traffic above the configured share of line rate). A recorded fleet (probes.recording) runs nothing.',
      [
        g.target('sum by (instance, probe, outcome) (rate(fabric_probe_runs_total{%s}[$__rate_interval])) * 3600' % psel, '{{instance}} {{probe}} {{outcome}}') {
          noDataOnFixtures:: 'the test fleet replays recorded results (probes.recording), which runs and skips nothing',
        },
        g.target('sum by (instance, probe, reason) (rate(fabric_probe_skips_total{%s}[$__rate_interval])) * 3600' % psel, '{{instance}} {{probe}} skipped: {{reason}}') {
          noDataOnFixtures:: 'as above',
        },
      ],
      'short', w=24, h=7,
    ),
    g.table(
      'Bisection blame',
      'Which end each node\'s bisection blames for a low or failed multi-stream send result to a target (fabric_probe_suspect): peer (a known-good peer in the target\'s rack was fine: the target\'s end), self (a known-good peer in its own rack was low too: this node) or path (the way between the two racks). Low means under 60%% of the path\'s line rate, the slower end\'s. Many nodes blaming one target point at that target. FabricProbeSuspectEnd fires on each blame that holds for %s.' % cfg.causeFor,
      [g.target('fabric_probe_suspect{%s} == 1' % csel, instant=true, table=true) {
        noDataOnFixtures:: 'the test fleet replays recorded results (probes.recording): no bisection runs, so nothing is blamed',
      }],
      'short',
      [g.organize({ Time: null, Value: null, __name__: null, job: null })],
      w=24, h=6,
    ),
  ],
  extraVariables=[probeVar, targetVar],
)
