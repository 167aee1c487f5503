// Fleet membership and the exporter's config reloads (issue 44): every node publishes the
// digest of its fleet list (fabric_fleet_digest_info{digest}); two nodes whose lists differ
// refuse to probe each other (reason fleet_mismatch) and each lists the other in
// fabric_fleet_peer_digest_info{peer, peer_digest, agreement="differs"}. A node on another
// list computes another plan: pairs that never meet, responders asked twice. The alerts join
// the instrument's group (fabric-ladder.instrument), so no rule test file changes its
// group_eval_order for them.
{
  _config+:: {
    // A nodes file rolled out by configuration management reaches the nodes within minutes
    // and each exporter reads it within --config.reload-interval (30 s): a disagreement that
    // outlasts this is a node left behind.
    fleetListsDifferFor: '15m',
    // A failed reload keeps the config before it; the exporter retries when the file changes
    // again. Longer than an edit-and-fix at the keyboard.
    configReloadFailedFor: '10m',
  },

  local c = $._config,
  local alert(name, severity, expr, summary, description, for_) = {
    alert: name,
    expr: expr,
    'for': for_,
    labels: { severity: severity },
    annotations: {
      summary: summary,
      description: description,
      runbook_url: '%s#%s' % [c.runbookBase, std.asciiLower(name)],
    },
  },
  // How many nodes publish digest `label` (a label of the alert), and up to five of them.
  local holders(label) =
    '{{ with printf `count(fabric_fleet_digest_info{' + c.selector + ',digest=%q})` $labels.' + label +
    ' | query }}{{ . | first | value }}{{ else }}0{{ end }} node(s) hold {{ $labels.' + label +
    ' }} ({{ range printf `topk(5, fabric_fleet_digest_info{' + c.selector + ',digest=%q})` $labels.' +
    label + ' | query | sortByLabel "instance" }}{{ .Labels.instance }} {{ end }}...)',

  local rules = [
    // Evidence from a probe session (both sides refused it) between two digests that are
    // both still published: once the peer holds this node's list again, or nothing
    // publishes its old digest, the pair's record no longer counts (it is kept until the two
    // meet again). A peer of an older version (agreement="unknown") is probed as before.
    alert('FabricFleetListsDiffer', 'warning', |||
      (
        max by (instance, peer, peer_digest) (fabric_fleet_peer_digest_info{%(selector)s, agreement="differs"})
        * on (instance) group_left (digest)
          max by (instance, digest) (fabric_fleet_digest_info{%(selector)s})
      )
      and on (peer_digest)
        label_replace(max by (digest) (fabric_fleet_digest_info{%(selector)s}), "peer_digest", "$1", "digest", "(.+)")
    ||| % c, 'Two nodes plan with different fleet lists and refuse to probe each other.',
          '{{ $labels.instance }} plans with fleet list {{ $labels.digest }}, its peer {{ $labels.peer }} with {{ $labels.peer_digest }}: the two refuse to probe each other (reason fleet_mismatch) until both hold the same nodes file. ' +
          holders('digest') + '; ' + holders('peer_digest') + '.', c.fleetListsDifferFor),
    alert('FabricExporterConfigReloadFailed', 'warning', |||
      fabric_exporter_config_last_reload_successful{%(selector)s} == 0
    ||| % c, 'An exporter could not load its changed config and runs on the one before.',
          '{{ $labels.instance }} failed to reload its config file or fleet nodes file and keeps running on the config it had; its log names the file, line and key ("config reload failed").', c.configReloadFailedFor),
  ],

  prometheusAlerts+:: {
    groups: [
      if g.name == 'fabric-ladder.instrument' then g { rules+: rules } else g
      for g in super.groups
    ],
  },
}
