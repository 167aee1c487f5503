// What the TCP probe samples at its window edges to check itself: the
// kernel's per-socket TCP_INFO, per-CPU time from procfs stat, per-thread CPU
// clocks, and the NIC's byte counters. The files are read by common/kernel's
// readers; these take the procfs/sysfs roots so tests and containers can
// point them elsewhere.
#pragma once

#include <pthread.h>
#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/parse/cpu_list_parse.h"
#include "common/parse/proc_stat_parse.h"
#include "common/read/sysroot.h"
#include "common/result.h"

namespace fabric::probe {

struct TcpInfoSample {
  bool valid = false;
  uint64_t total_retrans = 0;
  uint32_t rtt_us = 0;
  uint32_t rttvar_us = 0;
  // The lowest RTT the connection has seen (Linux 4.6+): the path without queueing, 0 when unknown.
  uint32_t min_rtt_us = 0;
  uint32_t snd_cwnd = 0;  // segments
  uint32_t snd_mss = 0;
  uint32_t pmtu = 0;
  uint64_t busy_us = 0;
  uint64_t rwnd_limited_us = 0;
  uint64_t sndbuf_limited_us = 0;
  uint64_t bytes_acked = 0;
  uint64_t bytes_received = 0;
  uint32_t snd_wnd = 0;  // The peer's advertised receive window (Linux 5.4+); 0 when unknown.
};
TcpInfoSample SampleTcpInfo(int fd);

// procfs stat's CPU lines (CpuTimes: common/parse/proc_stat_parse.h).
Result<std::vector<CpuTimes>> ReadProcStat(const std::string& procfs);

struct HostCpuUsage {
  double busy_fraction = 0;     // all CPUs together, 0..1
  double max_cpu_busy = 0;      // the busiest single CPU, 0..1
  int max_cpu = -1;             // which one
  double softirq_seconds = 0;   // all CPUs
  double softirq_fraction = 0;  // of all CPU time
};
HostCpuUsage DiffCpu(const std::vector<CpuTimes>& before, const std::vector<CpuTimes>& after);

// CPU time (user+system) a thread has used, in seconds; 0 when unknown.
double ThreadCpuSeconds(pthread_t thread);

struct ProcessCpu {
  double user_seconds = 0;
  double system_seconds = 0;
};
ProcessCpu SampleProcessCpu();

// The network interface that holds a local address (getifaddrs), "" if none.
std::string InterfaceForAddress(const sockaddr_storage& local);

struct NicCounters {
  bool valid = false;
  uint64_t rx_bytes = 0;
  uint64_t tx_bytes = 0;
};
NicCounters ReadNicCounters(const std::string& sysfs, const std::string& iface);
// The interface's MTU from sysfs, 0 when unknown.
int64_t ReadInterfaceMtu(const SysRoot& root, const std::string& iface);
// Link speed in bits/s from sysfs, 0 when unknown (loopback, down links).
double ReadLinkSpeedBps(const std::string& sysfs, const std::string& iface);
// CPUs of the NUMA node the interface's device sits on, empty when unknown.
std::vector<int> NicNumaCpus(const std::string& sysfs, const std::string& iface);

}  // namespace fabric::probe
