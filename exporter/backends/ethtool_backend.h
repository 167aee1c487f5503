// EthtoolBackend: where the netdev collector gets what only ethtool knows
// (driver, driver statistics, pause, channels, rings, FEC mode and
// statistics, interrupt coalescing, offload features). The kernel backend asks
// the running kernel (ioctl SIOCETHTOOL and ethtool netlink); the fixture
// backend reads recorded `ethtool` output from a fixture tree, so the whole
// exporter runs on a captured host in tests.
//
// Every method returns an absent error (Result::absent()) when the interface
// or driver does not support the request: veth has no pause statistics,
// virtio no ring parameters on old kernels, and a recording may lack a file.
#pragma once

#include <memory>
#include <string>

#include "common/parse/ethtool_coalesce_parse.h"
#include "common/parse/ethtool_features_parse.h"
#include "common/parse/ethtool_fec_parse.h"
#include "common/parse/ethtool_parse.h"
#include "common/read/sysroot.h"
#include "common/result.h"

namespace fabric {

class EthtoolBackend {
 public:
  virtual ~EthtoolBackend() = default;
  virtual Result<EthtoolDriverInfo> DriverInfo(const std::string& ifname) = 0;
  virtual Result<EthtoolStats> Stats(const std::string& ifname) = 0;
  virtual Result<EthtoolPause> Pause(const std::string& ifname) = 0;
  virtual Result<EthtoolLimits> Channels(const std::string& ifname) = 0;
  virtual Result<EthtoolLimits> Rings(const std::string& ifname) = 0;
  // ETHTOOL_MSG_FEC_GET with statistics (ioctl ETHTOOL_GFECPARAM for the
  // mode alone where netlink is missing).
  virtual Result<EthtoolFec> Fec(const std::string& ifname) = 0;
  // ETHTOOL_MSG_COALESCE_GET (ioctl ETHTOOL_GCOALESCE where netlink is missing).
  virtual Result<EthtoolCoalesce> Coalesce(const std::string& ifname) = 0;
  // GRO, LRO, TSO, GSO (ETHTOOL_GGRO, ETHTOOL_GFLAGS, ETHTOOL_GTSO, ETHTOOL_GGSO).
  virtual Result<EthtoolFeatures> Features(const std::string& ifname) = 0;
};

// The running kernel, in the exporter's network namespace.
std::unique_ptr<EthtoolBackend> MakeKernelEthtoolBackend();

// Recorded output under <sysfs>/class/net/<if>/ethtool.recorded/: any number of
// files, each starting with the command line it recorded ("# ethtool -S
// ens1f0np0") followed by that command's output.
std::unique_ptr<EthtoolBackend> MakeFixtureEthtoolBackend(const SysRoot& root);

// The directory holding an interface's recorded ethtool output.
std::string RecordedEthtoolDir(const SysRoot& root, const std::string& ifname);

// True when `path` is a mounted sysfs (statfs magic), i.e. a live kernel's
// view rather than a captured tree: the rule `ethtool_source: auto` uses.
bool IsMountedSysfs(const std::string& path);

}  // namespace fabric
