// Where the flows collector gets its sockets and local addresses from: a
// small interface with the live implementation (sock_diag and rtnetlink in the
// exporter's own network namespace) and a recorded one (a text dump from a
// fixture tree), so the whole binary runs deterministically over fixtures.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/parse/flow_types.h"
#include "common/result.h"

namespace fabric {

class FlowSource {
 public:
  virtual ~FlowSource() = default;
  // One dump of the TCP sockets that carry data or are closing with data
  // acked (ESTABLISHED, FIN-WAIT-1/2, CLOSE-WAIT, CLOSING, LAST-ACK) with
  // TCP_INFO, inode and buffer sizes, plus the host's addresses.
  virtual Result<FlowSnapshot> Snapshot() = 0;
};

// Live: NETLINK_SOCK_DIAG and NETLINK_ROUTE dumps, a fresh pair of netlink
// sockets per snapshot (a scrape is rare; nothing to keep open between them).
std::unique_ptr<FlowSource> MakeNetlinkFlowSource();

// Reads a recording (common/parse/flow_recording_parse.h) once at start-up.
// It must hold at least two snapshots: the collector computes the last one
// against the one before on every scrape, so output is the same each time.
Result<std::vector<FlowSnapshot>> LoadFlowRecording(const std::string& path);

}  // namespace fabric
