// What the flows collector reads from the kernel (or a recording): the TCP
// sockets with their TCP_INFO, and the host's addresses. Shared by the netlink
// parsers, the recording parser and the flow tracker.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/parse/ip_address.h"

namespace fabric {

// The TCP_INFO fields the tracker uses. Kernels append fields to struct
// tcp_info over time; a field past the end of what this kernel sent is
// nullopt (bytes_acked/received: 4.1+, delivery_rate 4.9+, busy/rwnd/sndbuf
// chronographs 4.10+, snd_wnd 5.19+).
struct TcpInfo {
  uint8_t state = 0;
  uint32_t snd_mss = 0;
  uint32_t rtt_us = 0;
  uint32_t snd_cwnd = 0;   // Segments.
  uint32_t rcv_space = 0;  // Bytes: the receive window auto-tuning works towards.
  uint32_t total_retrans = 0;
  std::optional<uint64_t> bytes_acked;
  std::optional<uint64_t> bytes_received;
  std::optional<uint64_t> delivery_rate;  // Bytes per second.
  std::optional<uint64_t> busy_us;
  std::optional<uint64_t> rwnd_limited_us;
  std::optional<uint64_t> sndbuf_limited_us;
  std::optional<uint32_t> snd_wnd;  // Peer's advertised receive window, bytes.
};

struct SocketRecord {
  uint64_t cookie = 0;
  IpAddress local;
  uint16_t local_port = 0;
  IpAddress remote;
  uint16_t remote_port = 0;
  uint8_t state = 0;
  // The socket's inode (idiag_inode): what /proc/PID/fd links name, so the
  // owning process can be found. 0 for an orphaned socket (closed by its
  // process, still draining).
  uint32_t inode = 0;
  std::optional<TcpInfo> info;
  std::optional<uint32_t> rcvbuf;  // SK_MEMINFO_RCVBUF / SNDBUF, bytes.
  std::optional<uint32_t> sndbuf;
  // SK_MEMINFO_RMEM_ALLOC: what the receive queue holds now (data its process has not read,
  // with the kernel's per-buffer overhead), in the same units as rcvbuf.
  std::optional<uint32_t> rmem_alloc;
};

struct InterfaceAddress {
  uint32_t ifindex = 0;
  std::string interface;  // Empty when the link dump did not name it.
  IpAddress address;
};

struct FlowSnapshot {
  double monotonic_seconds = 0;  // When the socket dump was taken.
  std::vector<InterfaceAddress> addresses;
  std::vector<SocketRecord> sockets;
  // Sockets the kernel destroyed since the snapshot before, with their last TCP_INFO (the
  // sock_diag destroy group): the bytes a connection moved after the last dump that saw it, or
  // all of a connection that opened and closed between two dumps.
  std::vector<SocketRecord> closed;
  // Some destroyed sockets were not reported (the kernel dropped their messages).
  bool closed_overrun = false;
};

}  // namespace fabric
