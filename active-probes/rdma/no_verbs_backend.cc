// The backend of builds without rdma-core (FABRIC_WITH_VERBS=OFF): the probe
// library, the responder's RDMA kind and the CLI all exist and answer "no RDMA
// device" instead of measuring.
#include "active-probes/rdma/backend.h"

namespace fabric::probe {
namespace {

constexpr char kWhy[] =
    "no-device: this build has no RDMA support (built with FABRIC_WITH_VERBS=OFF; install "
    "Debian's libibverbs-dev and librdmacm-dev and rebuild)";

class NoVerbsBackend : public RdmaBackend {
 public:
  Result<std::unique_ptr<RdmaTarget>> NewTarget() override {
    return MakeError(ErrorCode::kNoDevice, kWhy);
  }
  Result<std::unique_ptr<RdmaInitiator>> NewInitiator() override {
    return MakeError(ErrorCode::kNoDevice, kWhy);
  }
};

}  // namespace

RdmaBackend& DefaultRdmaBackend() {
  static NoVerbsBackend backend;
  return backend;
}

bool RdmaBuiltWithVerbs() { return false; }

}  // namespace fabric::probe
