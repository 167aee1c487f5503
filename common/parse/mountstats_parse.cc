#include "common/parse/mountstats_parse.h"

#include <cstddef>

#include "common/strings.h"

namespace fabric {
namespace {

constexpr size_t kBytesFields = 8;
constexpr size_t kRdmaMinFields = 20;  // 10 generic, 10 RPC-over-RDMA (3.x).
constexpr size_t kRdmaMaxFields = 27;  // 5.x and 6.x.

// The numbers of one line, or the index of the first that is not a number.
struct Numbers {
  std::vector<uint64_t> values;
  size_t bad = SIZE_MAX;
};

Numbers ParseNumbers(const std::vector<std::string_view>& fields, size_t first) {
  Numbers n;
  for (size_t i = first; i < fields.size(); ++i) {
    auto v = ParseUint64(fields[i]);
    if (!v) {
      n.bad = i;
      return n;
    }
    n.values.push_back(*v);
  }
  return n;
}

void SplitDevice(NfsMount& m) {
  std::string_view d = m.device;
  size_t colon = std::string_view::npos;
  if (!d.empty() && d.front() == '[') {
    size_t close = d.find(']');
    if (close != std::string_view::npos && close + 1 < d.size() && d[close + 1] == ':') {
      m.server = std::string(d.substr(1, close - 1));
      m.export_path = std::string(d.substr(close + 2));
      return;
    }
  } else {
    colon = d.find(':');
  }
  if (colon == std::string_view::npos) {
    m.server = m.device;
    return;
  }
  m.server = std::string(d.substr(0, colon));
  m.export_path = std::string(d.substr(colon + 1));
}

// The numbers after "xprt: PROTO", by the count each protocol and statvers prints.
std::string CheckTransportCount(const NfsTransportStats& t, std::string_view version,
                                size_t count) {
  if (t.protocol == "rdma") {
    if (count >= kRdmaMinFields && count <= kRdmaMaxFields) return "";
    return "xprt rdma: expected 20 to 27 numbers, got " + std::to_string(count);
  }
  size_t want = 0;
  if (t.protocol == "tcp") want = version == "1.0" ? 10 : 13;
  if (t.protocol == "udp") want = version == "1.0" ? 7 : 10;
  if (want == 0) return "xprt: unknown transport " + Quote(t.protocol);
  if (count == want) return "";
  return "xprt " + t.protocol + " (statvers=" + std::string(version) + "): expected " +
         std::to_string(want) + " numbers, got " + std::to_string(count);
}

void FillTransport(NfsTransportStats& t, const std::vector<uint64_t>& v) {
  size_t i = 0;
  t.port = v[i++];
  t.bind_count = v[i++];
  // udp has no connection: no connect count, connect time or idle time.
  if (t.protocol != "udp") {
    t.connect_count = v[i++];
    t.connect_time = v[i++];
    t.idle_seconds = v[i++];
  }
  t.sends = v[i++];
  t.receives = v[i++];
  t.bad_xids = v[i++];
  t.request_queue_sum = v[i++];
  t.backlog_sum = v[i++];
  if (t.protocol == "rdma") {
    NfsRdmaStats r;
    for (auto member : kNfsRdmaCounters) r.*member = v[i++];
    for (auto member : kNfsRdmaLaterCounters) {
      if (i < v.size()) r.*member = v[i++];
    }
    t.rdma = r;
    return;
  }
  if (i < v.size()) {
    t.max_slots = v[i++];
    t.sending_queue_sum = v[i++];
    t.pending_queue_sum = v[i++];
  }
}

}  // namespace

std::optional<std::string> NfsMount::Option(std::string_view key) const {
  return FindMountOption(options, key);
}

Result<std::vector<NfsMount>> ParseMountStats(std::string_view text, std::string_view source) {
  std::vector<NfsMount> mounts;
  NfsMount* current = nullptr;  // The NFS mount whose indented lines follow.
  bool in_ops = false;
  size_t line_number = 0;
  for (std::string_view line : SplitLines(text)) {
    ++line_number;
    auto fail = [&](const std::string& why) {
      return MakeError(std::string(source) + ":" + std::to_string(line_number) + ": " + why);
    };
    auto fields = SplitFields(line);
    if (fields.empty()) continue;
    if (fields[0] == "device" && line.front() == 'd') {
      // device DEV mounted on MOUNT with fstype TYPE [statvers=V]
      if (fields.size() < 8 || fields[2] != "mounted" || fields[3] != "on" || fields[5] != "with" ||
          fields[6] != "fstype") {
        return fail("expected \"device DEV mounted on MOUNT with fstype TYPE\", got " +
                    Quote(line));
      }
      current = nullptr;
      in_ops = false;
      if (fields.size() < 9 || !StartsWith(fields[8], "statvers=")) continue;
      if (fields[7] != "nfs" && fields[7] != "nfs4") continue;
      NfsMount m;
      m.device = UnescapeOctal(fields[1]);
      m.mount_point = UnescapeOctal(fields[4]);
      m.fstype = std::string(fields[7]);
      m.stat_version = std::string(fields[8].substr(9));
      if (m.stat_version != "1.0" && m.stat_version != "1.1") {
        return fail("unknown statvers " + Quote(m.stat_version));
      }
      SplitDevice(m);
      mounts.push_back(std::move(m));
      current = &mounts.back();
      continue;
    }
    if (current == nullptr) continue;  // Another filesystem's lines, or none.
    std::string_view key = fields[0];
    if (in_ops) {
      // NAME: ops ntrans timeouts bytes_sent bytes_recv queue rtt execute [errors]
      if (key.size() < 2 || key.back() != ':') return fail("expected \"OP: numbers\"");
      auto n = ParseNumbers(fields, 1);
      if (n.bad != SIZE_MAX) {
        return fail(std::string(key) + " not a number: " + Quote(fields[n.bad]));
      }
      if (n.values.size() != 8 && n.values.size() != 9) {
        return fail(std::string(key) + " expected 8 or 9 numbers, got " +
                    std::to_string(n.values.size()));
      }
      NfsOperationStats op;
      op.name = std::string(key.substr(0, key.size() - 1));
      op.operations = n.values[0];
      op.transmissions = n.values[1];
      op.major_timeouts = n.values[2];
      op.bytes_sent = n.values[3];
      op.bytes_received = n.values[4];
      op.queue_ms = n.values[5];
      op.rtt_ms = n.values[6];
      op.execute_ms = n.values[7];
      if (n.values.size() == 9) op.errors = n.values[8];
      current->operations.push_back(std::move(op));
      continue;
    }
    if (key == "per-op") {
      in_ops = true;
    } else if (key == "opts:") {
      if (fields.size() != 2) return fail("opts: expected one comma-separated list");
      current->options = ParseMountOptions(fields[1]);
    } else if (key == "age:") {
      auto age = fields.size() == 2 ? ParseUint64(fields[1]) : std::nullopt;
      if (!age) return fail("age: expected one number of seconds");
      current->age_seconds = *age;
    } else if (key == "bytes:") {
      auto n = ParseNumbers(fields, 1);
      if (n.bad != SIZE_MAX) return fail("bytes: not a number: " + Quote(fields[n.bad]));
      if (n.values.size() != kBytesFields) {
        return fail("bytes: expected 8 numbers, got " + std::to_string(n.values.size()));
      }
      const auto& v = n.values;
      current->bytes = NfsByteCounters{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
    } else if (key == "xprt:") {
      if (fields.size() < 2) return fail("xprt: no transport");
      NfsTransportStats t;
      t.protocol = std::string(fields[1]);
      auto n = ParseNumbers(fields, 2);
      if (n.bad != SIZE_MAX) return fail("xprt: not a number: " + Quote(fields[n.bad]));
      if (auto why = CheckTransportCount(t, current->stat_version, n.values.size()); !why.empty()) {
        return fail(why);
      }
      FillTransport(t, n.values);
      current->transports.push_back(std::move(t));
    }
    // Other lines (events, caps, nfsv4, sec, impl_id, fsc, RPC iostats
    // version) carry nothing the collector reports.
  }
  return mounts;
}

}  // namespace fabric
