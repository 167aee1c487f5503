#include "active-probes/probe/rungs.h"

#include <array>

namespace fabric::probe {
namespace {

constexpr Direction kSendOnly[] = {Direction::kSend};
constexpr Direction kBothWays[] = {Direction::kSend, Direction::kReceive};
constexpr Direction kUndirected[] = {Direction::kNone};

// clang-format off
constexpr std::array<RungInfo, 13> kRungs = {{
  {Rung::kRdma,         "rdma",          "RDMA write",    RungTarget::kPeer,      kSendOnly,   true,  true},
  {Rung::kTcpMulti,     "tcp_multi",     "N-stream TCP",  RungTarget::kPeer,      kBothWays,   true,  true},
  {Rung::kTcpSingle,    "tcp_single",    "1-stream TCP",  RungTarget::kPeer,      kBothWays,   true,  false},
  {Rung::kStorageRead,  "storage_read",  "storage read",  RungTarget::kDirectory, kUndirected, true,  true},
  {Rung::kStorageWrite, "storage_write", "storage write", RungTarget::kDirectory, kUndirected, true,  true},
  {Rung::kPath,         "path",          "path check",    RungTarget::kPeer,      kUndirected, false, false},
  {Rung::kTcpMultiCopy,  "tcp_multi_copy",  "N-stream TCP, copy mode", RungTarget::kPeer, kBothWays, false, false},
  {Rung::kTcpMultiSweep, "tcp_multi_sweep", "TCP stream sweep",        RungTarget::kPeer, kBothWays, false, false},
  {Rung::kStorageReadBuffered,      "storage_read_buffered",       "buffered storage read",     RungTarget::kDirectory, kUndirected, false, false},
  {Rung::kStorageReadSharedFile,    "storage_read_shared_file",    "storage read, one file",    RungTarget::kDirectory, kUndirected, false, false},
  {Rung::kStorageReadSeparateFiles, "storage_read_separate_files", "storage read, file per job", RungTarget::kDirectory, kUndirected, false, false},
  {Rung::kStorageReadDepth1,        "storage_read_depth1",         "storage read, depth 1",     RungTarget::kDirectory, kUndirected, false, false},
  {Rung::kStorageWriteDepth1,       "storage_write_depth1",        "storage write, depth 1",    RungTarget::kDirectory, kUndirected, false, false},
}};
// clang-format on

}  // namespace

std::span<const RungInfo> Rungs() { return kRungs; }

const RungInfo& InfoOf(Rung rung) {
  for (const auto& info : kRungs) {
    if (info.id == rung) return info;
  }
  return kRungs[0];  // Unreachable: every rung has a row (tested).
}

std::string_view RungLabel(Rung rung) { return InfoOf(rung).label; }

std::optional<Rung> RungFromLabel(std::string_view label) {
  for (const auto& info : kRungs) {
    if (info.label == label) return info.id;
  }
  return std::nullopt;
}

}  // namespace fabric::probe
