// Peer comparison of receive paths (issue 26 item 5): each NIC's
// receive-path facts (interrupts off its NUMA node, RPS/XPS, coalescing, ring
// fill, pause settings, the host's ASPM policy and the ASPM states enabled on
// the NIC's own PCIe link, the CPU governor, offloads) as
// one bounded series per fact, the fleet's most common value of each fact
// among the NICs of the same role on nodes of the same fleet role (the mode,
// by count_values), and an alert for a NIC whose value is not that mode.
// Nodes of different fleet roles (compute, storage servers) legitimately set
// their receive paths apart, so a NIC is compared only with the NICs of its
// role on nodes of its `node_role` (fabric_fleet_node_info's `role`; "" for
// a node without one, and those compare with each other). These are the likely causes to check
// first when one node's receive path pushes back (FabricReceiveBackpressure).
{
  _config+:: {
    // Roles whose NICs are compared with each other (management NICs differ
    // by design).
    peerRoles: 'fabric|storage',
    // NICs of a role that must report a fact before a minority means
    // anything: with two, neither is the odd one out.
    peerMinNics: 3,
    // How long a NIC must differ before it is named (a rolling change passes).
    peerDiffersFor: '30m',
  },

  local c = $._config,
  // The fleet role of each instance as `node_role`, one series per instance
  // (topk: a config reload that changes the role leaves no two series to
  // match many-to-many while the old one goes stale).
  _peerNodeRole:: |||
    topk by (instance) (1, max by (instance, node_role) (label_replace(fabric_fleet_node_info{%s}, "node_role", "$1", "role", "(.*)")))
  ||| % c.selector,
  // `expr` (one series per instance and further labels) with its node's
  // `node_role`; an instance without fleet info keeps its series, with no
  // node_role (""), rather than dropping out of the comparison.
  // Parenthesised whole: `or` binds looser than any comparison around it.
  withNodeRole(expr):: |||
    (
      (
        %(expr)s
        * on (instance) group_left (node_role) %(info)s
      )
      or on (instance)
        %(expr)s
    )
  ||| % { expr: std.stripChars(expr, '\n '), info: std.stripChars($._peerNodeRole, '\n ') },
  // Each NIC's role, to label the families that carry only `device`.
  local withRole(expr) = |||
    %s
    * on (instance, device) group_left (role) max by (instance, device, role) (fabric_netdev_role_info{%s, role=~"%s"})
  ||| % [std.stripChars(expr, '\n'), c.selector, c.peerRoles],
  local fact(name, expr) = 'label_replace(%s, "fact", "%s", "", "")' % [std.stripChars(expr, '\n '), name],
  local byNic(expr) = 'max by (instance, device, role) (%s)' % expr,
  local sel = '%s, role=~"%s"' % [c.selector, c.peerRoles],
  // ASPM states the exporter reads per PCI function (sysfs link/<state>_aspm,
  // fabric_pcie_link_aspm_enabled{address, state}), joined to the NIC's
  // netdev through fabric_pcie_netdev_info{address, device}. One fact per
  // state: both sides of an address join can have several series (a function
  // with several netdevs, a link with several states), and picking one state
  // first leaves the ASPM side with one series per address.
  local aspmStates = ['l0s', 'l1', 'l1_1', 'l1_2'],
  local aspmFact(state) = fact('aspm_' + state, withRole(|||
    max by (instance, device) (
      max by (instance, address, device) (fabric_pcie_netdev_info{%(selector)s})
      * on (instance, address) group_left ()
        max by (instance, address) (fabric_pcie_link_aspm_enabled{%(selector)s, state="%(state)s"})
    )
  ||| % (c { state: state }))),

  prometheusRules+:: {
    groups+: [{
      name: 'fabric-ladder.peers',
      rules: [
        {
          // One series per NIC and fact, its value the fact (0/1 for
          // settings and ASPM states, a code for governor and ASPM policy,
          // microseconds for coalescing, the current/max fraction for the
          // receive ring).
          record: 'instance_device_fact:fabric_receive_path:value',
          expr: std.join('\nor\n', [
            fact('irqs_off_node', byNic('clamp_max(fabric_netdev_irqs_off_node{%s}, 1)' % sel)),
            fact('rps', byNic('clamp_max(fabric_netdev_steered_queues{%s, direction="rx"}, 1)' % sel)),
            fact('xps', byNic('clamp_max(fabric_netdev_steered_queues{%s, direction="tx"}, 1)' % sel)),
            fact('coalesce_rx_usecs', byNic('fabric_netdev_coalesce_usecs{%s, direction="rx"}' % sel)),
            fact('coalesce_adaptive_rx', byNic('fabric_netdev_coalesce_adaptive{%s, direction="rx"}' % sel)),
            fact('ring_rx_fill', withRole(|||
              max by (instance, device) (fabric_netdev_ring_entries{%(selector)s, ring="rx", bound="current"})
              / max by (instance, device) (fabric_netdev_ring_entries{%(selector)s, ring="rx", bound="max"})
            ||| % c)),
            fact('pause_rx', withRole('max by (instance, device) (fabric_netdev_pause_enabled{%(selector)s, direction="rx"})' % c)),
            fact('pause_tx', withRole('max by (instance, device) (fabric_netdev_pause_enabled{%(selector)s, direction="tx"})' % c)),
            fact('aspm_policy', |||
              max by (instance, device, role) (0 * fabric_netdev_role_info{%s})
              + on (instance) group_left () max by (instance) (fabric_pcie_aspm_policy{%s})
            ||| % [sel, c.selector]),
          ] + [aspmFact(s) for s in aspmStates] + [
            fact('governor', byNic('fabric_netdev_cpu_governor{%s}' % sel)),
            'label_replace(max by (instance, device, role, offload) (fabric_netdev_offload_enabled{%s}), "fact", "offload_$1", "offload", "(.*)")' % sel,
          ]) + '\n',
        },
        {
          // The same with the value as a label (1 per NIC and fact), so
          // NICs can be counted per value, and the node's fleet role.
          record: 'instance_device_fact_value:fabric_receive_path:nics',
          expr: 'count_values without () ("value", %s)\n' % std.stripChars($.withNodeRole(
            'max by (instance, device, role, fact) (instance_device_fact:fabric_receive_path:value)'
          ), '\n'),
        },
        {
          // NICs of the role, on nodes of the node role, that have each
          // value of each fact.
          record: 'role_fact_value:fabric_receive_path:nics',
          expr: 'sum by (role, node_role, fact, value) (instance_device_fact_value:fabric_receive_path:nics)\n',
        },
        {
          // How many NICs have the most common value (the mode's count)...
          record: 'role_fact:fabric_receive_path:mode_nics',
          expr: 'max by (role, node_role, fact) (role_fact_value:fabric_receive_path:nics)\n',
        },
        {
          // ... and how many report the fact at all.
          record: 'role_fact:fabric_receive_path:nics',
          expr: 'sum by (role, node_role, fact) (role_fact_value:fabric_receive_path:nics)\n',
        },
        {
          // The mode itself (value label; several when tied).
          record: 'role_fact_value:fabric_receive_path:mode',
          expr: |||
            role_fact_value:fabric_receive_path:nics
            == on (role, node_role, fact) group_left () role_fact:fabric_receive_path:mode_nics
          |||,
        },
        {
          // Per NIC and fact: how many NICs of the role (and node role)
          // share its value.
          // Below the mode's count (with enough peers) is a NIC that differs.
          record: 'instance_device_fact:fabric_receive_path:peers_sharing',
          expr: |||
            instance_device_fact_value:fabric_receive_path:nics
            * on (role, node_role, fact, value) group_left () role_fact_value:fabric_receive_path:nics
          |||,
        },
      ],
    }],
  },

  prometheusAlerts+:: {
    groups+: [{
      name: 'fabric-ladder.peers_alerts',
      rules: [{
        alert: 'FabricReceivePathDiffersFromPeers',
        // Offloads have their own alert (FabricOffloadDiffersFromPeers).
        expr: |||
          instance_device_fact:fabric_receive_path:peers_sharing{fact!~"offload_.*"}
          < on (role, node_role, fact) group_left () role_fact:fabric_receive_path:mode_nics
          and on (role, node_role, fact) role_fact:fabric_receive_path:nics >= %(peerMinNics)s
        ||| % c,
        'for': c.peerDiffersFor,
        labels: { severity: 'warning' },
        annotations: {
          summary: "A NIC's receive path differs from its peers'.",
          description: "{{ $labels.device }} ({{ $labels.role }}) on {{ $labels.instance }} differs from its peers in {{ $labels.fact }}: its value {{ $labels.value }} is shared by {{ $value }} of the fleet's {{ $labels.role }} NICs on {{ with $labels.node_role }}{{ . }} nodes{{ else }}nodes without a fleet role{{ end }}, fewer than have the most common value. A likely cause when this node's receive path pushes back and its peers' do not.",
          runbook_url: '%s#fabricreceivepathdiffersfrompeers' % c.runbookBase,
        },
      }],
    }],
  },
}
