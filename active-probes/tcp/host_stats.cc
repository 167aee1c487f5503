#include "active-probes/tcp/host_stats.h"

#include <fcntl.h>
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
#include "common/strings.h"
#include "common/unique_fd.h"

namespace fabric::probe {
namespace {

// procfs and sysfs files report a size of 4096 or 0, so read until EOF.
Result<std::string> ReadSmallFile(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return MakeError(path + ": " + std::strerror(errno));
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return MakeError(path + ": " + std::strerror(errno));
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

std::optional<uint64_t> ReadUint(const std::string& path) {
  auto text = ReadSmallFile(path);
  if (!text.ok()) return std::nullopt;
  return ParseUint64(TrimSpace(*text));
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

Result<std::vector<CpuTimes>> ParseProcStat(std::string_view text) {
  std::vector<CpuTimes> out;
  int line_no = 0;
  for (auto line : SplitLines(text)) {
    ++line_no;
    if (!StartsWith(line, "cpu")) continue;
    auto f = SplitFields(line);
    if (f.size() < 8) return MakeError("stat:" + std::to_string(line_no) + ": too few columns");
    CpuTimes t;
    if (f[0] != "cpu") {
      auto id = ParseUint64(f[0].substr(3));
      if (!id) return MakeError("stat:" + std::to_string(line_no) + ": bad cpu id");
      t.cpu = static_cast<int>(*id);
    }
    uint64_t* cols[] = {&t.user,   &t.nice, &t.system,  &t.idle,
                        &t.iowait, &t.irq,  &t.softirq, &t.steal};
    for (size_t i = 0; i < 8; ++i) {
      if (i + 1 >= f.size()) break;
      auto v = ParseUint64(f[i + 1]);
      if (!v) return MakeError("stat:" + std::to_string(line_no) + ": bad number");
      *cols[i] = *v;
    }
    out.push_back(t);
  }
  if (out.empty()) return MakeError("stat: no cpu lines");
  return out;
}

Result<std::vector<CpuTimes>> ReadProcStat(const std::string& procfs) {
  auto text = ReadSmallFile(procfs + "/stat");
  if (!text.ok()) return Unexpected{text.error()};
  return ParseProcStat(*text);
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
  if (iface.empty()) return c;
  std::string base = sysfs + "/class/net/" + iface + "/statistics/";
  auto rx = ReadUint(base + "rx_bytes");
  auto tx = ReadUint(base + "tx_bytes");
  if (!rx || !tx) return c;
  c.valid = true;
  c.rx_bytes = *rx;
  c.tx_bytes = *tx;
  return c;
}

double ReadLinkSpeedBps(const std::string& sysfs, const std::string& iface) {
  if (iface.empty()) return 0;
  auto text = ReadSmallFile(sysfs + "/class/net/" + iface + "/speed");
  if (!text.ok()) return 0;
  auto v = ParseInt64(TrimSpace(*text));
  if (!v || *v <= 0) return 0;
  return static_cast<double>(*v) * 1e6;
}

Result<std::vector<int>> ParseCpuList(std::string_view text) {
  std::vector<int> out;
  text = TrimSpace(text);
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    std::string_view item =
        text.substr(start, comma == std::string_view::npos ? text.size() - start : comma - start);
    auto dash = item.find('-');
    auto lo = ParseUint64(item.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : ParseUint64(item.substr(dash + 1));
    if (!lo || !hi || *hi < *lo || *hi > 65535) return MakeError("bad CPU list " + Quote(text));
    for (uint64_t c = *lo; c <= *hi; ++c) out.push_back(static_cast<int>(c));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<int> NicNumaCpus(const std::string& sysfs, const std::string& iface) {
  if (iface.empty()) return {};
  auto node_text = ReadSmallFile(sysfs + "/class/net/" + iface + "/device/numa_node");
  if (!node_text.ok()) return {};
  auto node = ParseInt64(TrimSpace(*node_text));
  if (!node || *node < 0) return {};
  auto list =
      ReadSmallFile(sysfs + "/devices/system/node/node" + std::to_string(*node) + "/cpulist");
  if (!list.ok()) return {};
  auto cpus = ParseCpuList(*list);
  return cpus.ok() ? *cpus : std::vector<int>{};
}

}  // namespace fabric::probe
