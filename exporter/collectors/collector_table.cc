#include "exporter/collectors/collector_table.h"

#include "exporter/collectors/pcie_collector.h"
#include "exporter/collectors/sockbuf_collector.h"
#include "exporter/collectors/softnet_collector.h"
#include "exporter/collectors/tcp_collector.h"

namespace fabric {

const std::vector<CollectorSpec>& CollectorTable() {
  static const std::vector<CollectorSpec> table = {
      {"pcie",
       true,
       "PCIe link speed/width/bandwidth of NICs, GPUs, NVMe and every port to the root, "
       "narrowest hop, downtrained and slot-limited paths, AER errors (/sys/bus/pci, libpci)",
       {"classes", "config_space", "config_space_dump", "pci_ids_file", "virtual_functions",
        "aer_types"},
       &MakePcieCollector},
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
