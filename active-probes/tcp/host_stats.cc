#include "active-probes/tcp/host_stats.h"

#include <ifaddrs.h>
#include <linux/tcp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "active-probes/control/cidr.h"
#include "common/kernel/net_class.h"
#include "common/kernel/numa.h"
#include "common/kernel/proc_stat.h"

namespace fabric::probe {
namespace {

// The readers take one root; these callers have only one of the two.
SysRoot ProcRoot(const std::string& procfs) {
  return SysRoot(procfs, std::string(SysRoot::kDefaultSysfs));
}
SysRoot SysfsRoot(const std::string& sysfs) {
  return SysRoot(std::string(SysRoot::kDefaultProcfs), sysfs);
}

}  // namespace

TcpInfoSample SampleTcpInfo(int fd) {
  TcpInfoSample s;
  tcp_info info{};
  socklen_t len = sizeof(info);
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return s;
  s.valid = true;
  s.total_retrans = info.tcpi_total_retrans;
  s.rtt_us = info.tcpi_rtt;
  s.rttvar_us = info.tcpi_rttvar;
  s.snd_cwnd = info.tcpi_snd_cwnd;
  s.snd_mss = info.tcpi_snd_mss;
  s.pmtu = info.tcpi_pmtu;
  // Fields after tcpi_total_retrans arrived in later kernels; len says which
  // this kernel filled in.
  auto has = [&](size_t offset_end) { return static_cast<size_t>(len) >= offset_end; };
  if (has(offsetof(tcp_info, tcpi_bytes_acked) + sizeof(info.tcpi_bytes_acked))) {
    s.bytes_acked = info.tcpi_bytes_acked;
    s.bytes_received = info.tcpi_bytes_received;
  }
  if (has(offsetof(tcp_info, tcpi_min_rtt) + sizeof(info.tcpi_min_rtt))) {
    s.min_rtt_us = info.tcpi_min_rtt;
  }
  if (has(offsetof(tcp_info, tcpi_sndbuf_limited) + sizeof(info.tcpi_sndbuf_limited))) {
    s.busy_us = info.tcpi_busy_time;
    s.rwnd_limited_us = info.tcpi_rwnd_limited;
    s.sndbuf_limited_us = info.tcpi_sndbuf_limited;
  }
  if (has(offsetof(tcp_info, tcpi_snd_wnd) + sizeof(info.tcpi_snd_wnd))) {
    s.snd_wnd = info.tcpi_snd_wnd;
  }
  return s;
}

Result<std::vector<CpuTimes>> ReadProcStat(const std::string& procfs) {
  return fabric::ReadProcStat(ProcRoot(procfs));
}

HostCpuUsage DiffCpu(const std::vector<CpuTimes>& before, const std::vector<CpuTimes>& after) {
  HostCpuUsage u;
  long hz = sysconf(_SC_CLK_TCK);
  if (hz <= 0) hz = 100;
  for (const auto& a : after) {
    auto it = std::find_if(before.begin(), before.end(),
                           [&](const CpuTimes& b) { return b.cpu == a.cpu; });
    if (it == before.end()) continue;
    double total = static_cast<double>(a.Total() - it->Total());
    if (total <= 0) continue;
    double busy = static_cast<double>(a.Busy() - it->Busy()) / total;
    if (a.cpu < 0) {
      u.busy_fraction = busy;
      u.softirq_seconds = static_cast<double>(a.softirq - it->softirq) / static_cast<double>(hz);
      u.softirq_fraction = static_cast<double>(a.softirq - it->softirq) / total;
    } else if (busy > u.max_cpu_busy) {
      u.max_cpu_busy = busy;
      u.max_cpu = a.cpu;
    }
  }
  return u;
}

double ThreadCpuSeconds(pthread_t thread) {
  clockid_t cid;
  if (pthread_getcpuclockid(thread, &cid) != 0) return 0;
  timespec ts{};
  if (clock_gettime(cid, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

ProcessCpu SampleProcessCpu() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto sec = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6;
  };
  return {sec(ru.ru_utime), sec(ru.ru_stime)};
}

std::string InterfaceForAddress(const sockaddr_storage& local) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string name;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr) continue;
    if (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6) continue;
    sockaddr_storage ss{};
    std::memcpy(&ss, i->ifa_addr,
                i->ifa_addr->sa_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in));
    if (SameHost(ss, local)) {
      name = i->ifa_name;
      break;
    }
  }
  freeifaddrs(list);
  return name;
}

NicCounters ReadNicCounters(const std::string& sysfs, const std::string& iface) {
  NicCounters c;
  auto counters = ReadNetByteCounters(SysfsRoot(sysfs), iface);
  if (!counters) return c;
  c.valid = true;
  c.rx_bytes = counters->rx_bytes;
  c.tx_bytes = counters->tx_bytes;
  return c;
}

int64_t ReadInterfaceMtu(const SysRoot& root, const std::string& iface) {
  if (iface.empty()) return 0;
  auto mtu = ReadNetInt(NetInterfaceDir(root, iface), "mtu");
  return mtu.ok() && mtu->has_value() ? **mtu : 0;
}

double ReadLinkSpeedBps(const std::string& sysfs, const std::string& iface) {
  auto mbps = ReadNetSpeedMbps(SysfsRoot(sysfs), iface);
  return mbps ? static_cast<double>(*mbps) * 1e6 : 0;
}

std::vector<int> NicNumaCpus(const std::string& sysfs, const std::string& iface) {
  return NetDeviceNumaCpus(SysfsRoot(sysfs), iface);
}

}  // namespace fabric::probe
