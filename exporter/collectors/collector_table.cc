#include "exporter/collectors/collector_table.h"

#include "exporter/collectors/flows_collector.h"
#include "exporter/collectors/sockbuf_collector.h"
#include "exporter/collectors/softnet_collector.h"
#include "exporter/collectors/tcp_collector.h"

namespace fabric {

const std::vector<CollectorSpec>& CollectorTable() {
  static const std::vector<CollectorSpec> table = {
      {"flows",
       true,
       "live TCP transfers on the fabric: goodput, limiter, application (sock_diag)",
       {"local_addresses", "interfaces", "bulk_threshold_bytes_per_second", "applications",
        "max_series", "recording"},
       &MakeFlowsCollector},
      {"sockbuf",
       true,
       "socket-buffer and packet-budget sysctls (/proc/sys/net)",
       {},
       &MakeSockbufCollector},
      {"softnet",
       true,
       "per-CPU backlog drops and time squeezes (/proc/net/softnet_stat)",
       {},
       &MakeSoftnetCollector},
      {"tcp",
       true,
       "TCP segments, retransmits and drops (/proc/net/snmp, /proc/net/netstat)",
       {},
       &MakeTcpCollector},
  };
  return table;
}

}  // namespace fabric
