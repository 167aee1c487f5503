// The RDMA session's control messages, on the shared line protocol:
//   -> RDMA_TEST qps= size= tx_depth= duration_ms= warmup_ms=
//   <- RDMA_ACCEPT token= cm_port= addr= rkey= length= device= port= mtu=   (or REJECT reason=)
//   (QPs connect through rdma_cm with the token as private data)
//   <- READY
//   -> MARK phase=start / MARK phase=end
//   <- RDMA_RESULT [xmit_bytes= rcv_bytes= np_cnp_sent= rp_cnp_handled= out_of_buffer=]
//                  user_us= system_us=
//   -> BYE
// Conversions are pure so every malformed shape is unit-tested.
#pragma once

#include <cstdint>
#include <string>

#include "active-probes/control/message.h"
#include "active-probes/rdma/backend.h"
#include "active-probes/rdma/ib_sysfs.h"
#include "common/result.h"

namespace fabric::probe {

inline constexpr char kRdmaTestVerb[] = "RDMA_TEST";

struct RdmaRequest {
  uint32_t qps = 0;
  uint32_t size = 0;
  uint32_t tx_depth = 0;
  uint64_t duration_ms = 0;
  uint64_t warmup_ms = 0;
  uint64_t region_bytes() const { return static_cast<uint64_t>(qps) * size; }
};

Message RdmaRequestToMessage(const RdmaRequest& r);
Result<RdmaRequest> RdmaRequestFromMessage(const Message& m);

Message RdmaAcceptToMessage(const RdmaRegion& region, const std::string& token);
// The region and token of an RDMA_ACCEPT.
Result<std::pair<RdmaRegion, std::string>> RdmaAcceptFromMessage(const Message& m);

struct RdmaSideReport {
  PortCounterDelta counters;
  double user_seconds = 0;
  double system_seconds = 0;
};
Message RdmaSideReportToMessage(const RdmaSideReport& r);
Result<RdmaSideReport> RdmaSideReportFromMessage(const Message& m);

// REJECT reasons the RDMA kind sends (wire protocol), and the sentence the
// requester prints. The responder's device and port faults are the same
// faults as the requester's own (kNoDevice is reported as a rejection,
// kNoActivePort as no active port on the path).
inline constexpr char kRejectNoRdmaDevice[] = "no-rdma-device";
inline constexpr char kRejectNoActivePort[] = "no-active-port";
inline constexpr char kRejectSetupFailed[] = "rdma-setup-failed";
std::string RdmaRejectText(const std::string& reason);

}  // namespace fabric::probe
