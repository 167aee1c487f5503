#include "common/parse/flow_recording_parse.h"

#include <string>

#include "common/strings.h"

namespace fabric {
namespace {

Result<std::pair<IpAddress, uint16_t>> ParseEndpoint(std::string_view text) {
  std::string_view host;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find("]:");
    if (close == std::string_view::npos) return MakeError("bad endpoint " + Quote(text));
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return MakeError("bad endpoint " + Quote(text));
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  auto address = ParseIpAddress(host);
  if (!address.ok()) return Unexpected{address.error()};
  auto number = ParseUint64(port);
  if (!number || *number > 65535) return MakeError("bad port in " + Quote(text));
  return std::pair{*address, static_cast<uint16_t>(*number)};
}

Status SetSocketKey(SocketRecord& s, std::string_view key, uint64_t v) {
  auto& i = *s.info;
  auto u32 = [&](uint32_t& field) { field = static_cast<uint32_t>(v); };
  if (key == "cookie") {
    s.cookie = v;
  } else if (key == "state") {
    s.state = i.state = static_cast<uint8_t>(v);
  } else if (key == "snd_mss") {
    u32(i.snd_mss);
  } else if (key == "rtt_us") {
    u32(i.rtt_us);
  } else if (key == "snd_cwnd") {
    u32(i.snd_cwnd);
  } else if (key == "rcv_space") {
    u32(i.rcv_space);
  } else if (key == "total_retrans") {
    u32(i.total_retrans);
  } else if (key == "bytes_acked") {
    i.bytes_acked = v;
  } else if (key == "bytes_received") {
    i.bytes_received = v;
  } else if (key == "delivery_rate") {
    i.delivery_rate = v;
  } else if (key == "busy_us") {
    i.busy_us = v;
  } else if (key == "rwnd_limited_us") {
    i.rwnd_limited_us = v;
  } else if (key == "sndbuf_limited_us") {
    i.sndbuf_limited_us = v;
  } else if (key == "snd_wnd") {
    i.snd_wnd = static_cast<uint32_t>(v);
  } else if (key == "rcvbuf") {
    s.rcvbuf = static_cast<uint32_t>(v);
  } else if (key == "sndbuf") {
    s.sndbuf = static_cast<uint32_t>(v);
  } else if (key == "rmem_alloc") {
    s.rmem_alloc = static_cast<uint32_t>(v);
  } else {
    return MakeError("unknown socket key " + Quote(key));
  }
  return OkStatus();
}

Result<SocketRecord> ParseSocketLine(const std::vector<std::string_view>& fields) {
  if (fields.size() < 3) return MakeError("expected: socket LOCAL REMOTE KEY=VALUE...");
  auto local = ParseEndpoint(fields[1]);
  if (!local.ok()) return Unexpected{local.error()};
  auto remote = ParseEndpoint(fields[2]);
  if (!remote.ok()) return Unexpected{remote.error()};
  SocketRecord s;
  s.local = local->first;
  s.local_port = local->second;
  s.remote = remote->first;
  s.remote_port = remote->second;
  s.state = 1;  // TCP_ESTABLISHED unless the line says otherwise.
  s.info = TcpInfo{};
  s.info->state = 1;
  for (size_t f = 3; f < fields.size(); ++f) {
    auto eq = fields[f].find('=');
    if (eq == std::string_view::npos)
      return MakeError("expected KEY=VALUE, got " + Quote(fields[f]));
    auto value = ParseUint64(fields[f].substr(eq + 1));
    if (!value) return MakeError("not a number: " + Quote(fields[f]));
    FABRIC_RETURN_IF_ERROR(SetSocketKey(s, fields[f].substr(0, eq), *value));
  }
  return s;
}

}  // namespace

Result<std::vector<FlowSnapshot>> ParseFlowRecording(std::string_view text,
                                                     std::string_view source) {
  std::vector<FlowSnapshot> snapshots;
  auto lines = SplitLines(text);
  for (size_t n = 0; n < lines.size(); ++n) {
    auto where = [&] { return std::string(source) + ":" + std::to_string(n + 1) + ": "; };
    auto fields = SplitFields(lines[n]);
    if (fields.empty() || fields[0].front() == '#') continue;
    if (fields[0] == "snapshot") {
      auto t = fields.size() == 2 ? ParseDouble(fields[1]) : std::nullopt;
      if (!t) return MakeError(where() + "expected: snapshot MONOTONIC_SECONDS");
      if (!snapshots.empty() && *t <= snapshots.back().monotonic_seconds) {
        return MakeError(where() + "snapshot times must increase");
      }
      FlowSnapshot snapshot;
      snapshot.monotonic_seconds = *t;
      snapshots.push_back(std::move(snapshot));
      continue;
    }
    if (snapshots.empty()) return MakeError(where() + "a `snapshot` line must come first");
    if (fields[0] == "address") {
      auto address = fields.size() == 3 ? ParseIpAddress(fields[2]) : MakeError("expected");
      if (!address.ok()) return MakeError(where() + "expected: address INTERFACE IP");
      snapshots.back().addresses.push_back({0, std::string(fields[1]), *address});
    } else if (fields[0] == "socket" || fields[0] == "destroyed") {
      auto socket = ParseSocketLine(fields);
      if (!socket.ok()) return MakeError(where() + socket.error().message);
      (fields[0] == "socket" ? snapshots.back().sockets : snapshots.back().closed)
          .push_back(std::move(*socket));
    } else {
      return MakeError(where() + "unknown record " + Quote(fields[0]));
    }
  }
  if (snapshots.empty()) return MakeError(std::string(source) + ": no snapshot in the recording");
  return snapshots;
}

}  // namespace fabric
