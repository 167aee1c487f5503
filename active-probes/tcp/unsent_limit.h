// How much not-yet-sent data each sending stream may keep queued in its socket
// (TCP_NOTSENT_LOWAT).
//
// Without a limit, send-buffer autotuning lets every socket's send queue grow
// to net.ipv4.tcp_wmem's maximum (4 MiB by default), much of it not yet sent.
// The unsent part does not make a stream faster: only the data in flight has to
// cover the path's bandwidth-delay product, and each ACK makes room for the
// sender to queue more long before the queue runs dry (the kernel change that
// added the option says as much: "Write queue needs to be large only to deal
// with large BDP, not necessarily to cope with scheduling delays"). It does
// cost: 32 streams each holding megabytes of payload copied in long before it
// is sent spread the copies over far more memory than the CPU caches hold
// (inferred: the VM it was measured on has no cache-miss counters). On
// veth, 8 and 32 copying streams moved 14-19% more with the limit below at
// 12-16% less CPU per byte; loopback and one stream were level
// (docs/performance.md, gap 5).
//
// The automatic limit shares kUnsentBudgetBytes among a run's sending streams.
// A blocked sender is woken when its unsent data falls to half the limit, so
// the sockets of one host together keep about 2 MiB queued: at 400 Gbit/s that
// is 40 us of sending to refill in, on top of all the data in flight.
//
// Only for send blocks of kFullPacketBytes or more. With little unsent data
// queued, TCP sends each write as soon as it is made, so a write smaller than
// the largest packet the stack builds (64 KiB with GSO) leaves as a packet of
// its own size: on veth, 32 streams writing 16 KiB each with the automatic
// limit (128 KiB) arrived as 17.5 KB packets against 22.5-23 KB without it,
// with 57% more context switches per GB, and moved 11.7-13.6 Gbit/s against
// 14.5-15.1 (two alternating pairs; 4 of 4 bench pairs against neper
// tcp_stream, 2026-12-07). 128 KiB writes fill whole packets either way
// (52.6 against 57.2-57.8 KB) and kept the limit's gain: 32.6-33.1 Gbit/s
// against 27.7-30.1 without it.
#pragma once

#include <cstdint>

#include "common/result.h"

namespace fabric::probe {

inline constexpr uint32_t kUnsentBudgetBytes = 4u << 20;
inline constexpr uint32_t kMinUnsentLimitBytes = 64u << 10;
// The largest packet TCP hands down (GSO); a smaller send block gets no automatic limit.
inline constexpr uint32_t kFullPacketBytes = 64u << 10;
// The smallest limit a run may ask for (a responder refuses less): below it a sender is woken
// for every few segments ACKed, CPU a peer could make the responder burn.
inline constexpr uint32_t kSmallestUnsentLimitBytes = 16u << 10;
// The largest: more than any send buffer holds.
inline constexpr uint32_t kLargestUnsentLimitBytes = 1u << 30;

// Whether `bytes` is a limit a run may ask for: 0 (the kernel's default) or from
// kSmallestUnsentLimitBytes to kLargestUnsentLimitBytes. Pure.
bool UnsentLimitAllowed(uint64_t bytes);

// The automatic per-stream limit for a side that sends on sending_streams
// streams of send_block bytes per call: kUnsentBudgetBytes shared among them,
// at least kMinUnsentLimitBytes; 0 (the kernel's default) for a send block
// under kFullPacketBytes. Pure.
uint32_t AutoUnsentLimit(uint32_t sending_streams, uint32_t send_block);

// Sets the limit on a TCP socket. 0 leaves the kernel's default in place
// (net.ipv4.tcp_notsent_lowat, unlimited unless an administrator set it).
Status SetUnsentLimit(int fd, uint32_t bytes);

// What a socket's limit is now: its own, or 0 where it follows the kernel's default.
Result<uint32_t> GetUnsentLimit(int fd);

}  // namespace fabric::probe
