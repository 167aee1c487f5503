#include "exporter/collectors/collector_table.h"

#include "exporter/collectors/collective_collector.h"
#include "exporter/collectors/flows_collector.h"
#include "exporter/collectors/netdev_collector.h"
#include "exporter/collectors/nfs_collector.h"
#include "exporter/collectors/nvmeof_collector.h"
#include "exporter/collectors/pcie_collector.h"
#include "exporter/collectors/rdma_collector.h"
#include "exporter/collectors/sockbuf_collector.h"
#include "exporter/collectors/softnet_collector.h"
#include "exporter/collectors/tcp_collector.h"

namespace fabric {

const std::vector<CollectorSpec>& CollectorTable() {
  static const std::vector<CollectorSpec> table = {
      {"collective",
       true,
       "NCCL collective bus bandwidth per collective and message size from NCCL Inspector "
       "textfiles and nccl-tests JSON in a configured directory: the collective rung",
       {"directory", "max_files", "max_file_bytes", "max_series", "max_age"},
       &MakeCollectiveCollector},
      {"flows",
       true,
       "live TCP transfers on the fabric: goodput, limiter, application (sock_diag)",
       {"local_addresses", "interfaces", "bulk_threshold_bytes_per_second", "applications",
        "max_series", "recording", "window"},
       &MakeFlowsCollector},
      {"netdev",
       true,
       "NIC link state, flaps, counters, pause, FEC, coalescing, offloads, interrupt placement "
       "and typed driver statistics (sysfs, procfs, ethtool)",
       {"interfaces", "device_include", "device_exclude", "queue_stats", "driver_stats_include",
        "ethtool_source", "storage_interfaces", "management_interfaces"},
       &MakeNetdevCollector,
       {"device_include", "device_exclude", "queue_stats", "driver_stats_include",
        "ethtool_source"}},
      {"nfs",
       true,
       "NFS client transfers per mount: transport (tcp, rdma), negotiated and requested "
       "rsize/wsize, bytes, per-operation RPCs, retransmissions, RTT (/proc/self/mountstats)",
       {"requested_options_file"},
       &MakeNfsCollector},
      {"rdma",
       true,
       "RDMA port state, rate, port and hw counters (/sys/class/infiniband); queue pairs and "
       "rdma_cm ids per process and peer (RDMA netlink resource tracking)",
       {"restrack", "restrack_recording", "max_series"},
       &MakeRdmaCollector},
      {"nvmeof",
       true,
       "NVMe over Fabrics controllers: transport (rdma, tcp, fc), target, state, bytes and "
       "I/Os of their namespaces (/sys/class/nvme)",
       {},
       &MakeNvmeofCollector},
      {"pcie",
       true,
       "PCIe link speed/width/bandwidth of NICs, GPUs, NVMe and every port to the root, "
       "narrowest hop, downtrained and slot-limited paths, AER errors, link changes between "
       "scrapes, ASPM (/sys/bus/pci, libpci)",
       {"classes", "config_space", "config_space_dump", "pci_ids_file", "virtual_functions",
        "aer_types", "link_sampler", "link_sample_interval_seconds"},
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
