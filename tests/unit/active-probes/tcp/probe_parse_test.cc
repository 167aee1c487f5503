// Pure parts of the TCP probe: CPU usage between two procfs stat samples,
// the TEST and RESULT encodings, flag values.
#include <gtest/gtest.h>

#include "active-probes/cli/arg_parse.h"
#include "active-probes/tcp/host_stats.h"
#include "active-probes/tcp/session_request.h"
#include "active-probes/tcp/window.h"

namespace fabric::probe {
namespace {

TEST(ProcStatTest, DiffsTwoSamples) {
  auto a = ParseProcStat(
      "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 50 0 50 400 0 0 0 0\ncpu1 50 0 50 400 0 0 0 0\n"
      "intr 1 2 3\n");
  auto b = ParseProcStat(
      "cpu  200 0 250 850 0 0 50 0 0 0\ncpu0 150 0 145 400 0 0 5 0\ncpu1 50 0 105 450 0 0 "
      "45 0\n");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), 3u);
  auto u = DiffCpu(*a, *b);
  EXPECT_EQ(u.max_cpu, 0);
  EXPECT_DOUBLE_EQ(u.max_cpu_busy, 1.0);
  EXPECT_NEAR(u.busy_fraction, 300.0 / 350.0, 1e-9);
  EXPECT_NEAR(u.softirq_fraction, 50.0 / 350.0, 1e-9);
}

TEST(SessionRequestTest, RoundTripAndLimits) {
  SessionRequest r;
  r.up = 4;
  r.down = 2;
  r.duration_ms = 5000;
  r.warmup_ms = 1000;
  r.mode = SendMode::kZerocopy;
  r.block = 131072;
  r.peer_rcvbuf = 4096;
  r.recv_block = 65536;
  auto back = RequestFromMessage(RequestToMessage(r));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->total(), 6u);
  EXPECT_EQ(back->mode, SendMode::kZerocopy);
  EXPECT_EQ(back->peer_rcvbuf, 4096u);
  EXPECT_EQ(back->recv_block, 65536u);
  // A request from a requester that predates rblock leaves the responder's default.
  Message old = RequestToMessage(r);
  old.fields.erase("rblock");
  auto old_back = RequestFromMessage(old);
  ASSERT_TRUE(old_back.ok()) << old_back.error().message;
  EXPECT_EQ(old_back->recv_block, 0u);
  // The unsent limit: absent (that requester, and this one without it) is unset, so the
  // responder uses its automatic limit; 0 (the kernel's default) is a value of its own.
  EXPECT_FALSE(old_back->unsent_limit.has_value());
  r.unsent_limit = 0;
  auto zero = RequestFromMessage(RequestToMessage(r));
  ASSERT_TRUE(zero.ok()) << zero.error().message;
  EXPECT_EQ(zero->unsent_limit, std::optional<uint32_t>(0));
  r.unsent_limit = 131072;
  EXPECT_EQ(RequestFromMessage(RequestToMessage(r))->unsent_limit, std::optional<uint32_t>(131072));
  Message bad = RequestToMessage(r);
  bad.Set("unsent", std::to_string(2u << 30));
  EXPECT_FALSE(RequestFromMessage(bad).ok());
  bad.Set("unsent", "-1");
  EXPECT_FALSE(RequestFromMessage(bad).ok());
  bad.Set("unsent", "1");  // a responder does not wake its senders for every ACK on request
  EXPECT_FALSE(RequestFromMessage(bad).ok());
  bad = RequestToMessage(r);
  bad.Set("up", "99999999999");
  EXPECT_FALSE(RequestFromMessage(bad).ok());
  bad = RequestToMessage(r);
  bad.Set("rblock", std::to_string(8u << 20));
  EXPECT_FALSE(RequestFromMessage(bad).ok());
  bad.Set("rblock", "100");  // one receive call per 100 bytes: refused
  EXPECT_FALSE(RequestFromMessage(bad).ok());
  bad = RequestToMessage(r);
  bad.Set("mode", "splice");
  EXPECT_FALSE(RequestFromMessage(bad).ok());
  bad = RequestToMessage(r);
  bad.fields.erase("duration_ms");
  EXPECT_FALSE(RequestFromMessage(bad).ok());
}

TEST(SideReportTest, RoundTrip) {
  SideReport r;
  r.window_seconds = 2.5;
  r.user_seconds = 0.25;
  r.host.max_cpu_busy = 0.95;
  r.host.max_cpu = 1;
  r.iface = "eth0";
  r.nic_valid = true;
  r.nic_tx_bytes = 123;
  StreamWindow w;
  w.send = true;
  w.bytes = 1000;
  w.thread_cpu_seconds = 1.5;
  w.rwnd_limited_us = 7;
  w.unsent_limit = 131072;
  r.streams = {w, StreamWindow{}};
  auto back = SideReportFromMessage(SideReportToMessage(r));
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->streams.size(), 2u);
  EXPECT_TRUE(back->streams[0].send);
  EXPECT_FALSE(back->streams[1].send);
  EXPECT_EQ(back->streams[0].bytes, 1000u);
  EXPECT_EQ(back->streams[0].rwnd_limited_us, 7u);
  EXPECT_DOUBLE_EQ(back->streams[0].thread_cpu_seconds, 1.5);
  EXPECT_DOUBLE_EQ(back->window_seconds, 2.5);
  EXPECT_EQ(back->host.max_cpu, 1);
  EXPECT_EQ(back->iface, "eth0");
  EXPECT_EQ(back->nic_tx_bytes, 123u);
  EXPECT_EQ(back->streams[0].unsent_limit, 131072);
  EXPECT_EQ(back->streams[1].unsent_limit, -1);
  // A responder from before the unsent limit was reported: unknown, not the kernel's default.
  Message older = SideReportToMessage(r);
  older.fields.erase("unsent");
  auto older_back = SideReportFromMessage(older);
  ASSERT_TRUE(older_back.ok()) << older_back.error().message;
  EXPECT_EQ(older_back->streams[0].unsent_limit, -1);
  Message bad_unsent = SideReportToMessage(r);
  bad_unsent.Set("unsent", "131072,x");
  EXPECT_FALSE(SideReportFromMessage(bad_unsent).ok());
  Message short_list = SideReportToMessage(r);
  short_list.Set("bytes", "1");
  EXPECT_FALSE(SideReportFromMessage(short_list).ok());
}

TEST(ArgParseTest, Values) {
  EXPECT_EQ(ParseDurationFlag("d", "5s")->count(), 5000);
  EXPECT_EQ(ParseDurationFlag("d", "250ms")->count(), 250);
  EXPECT_EQ(ParseDurationFlag("d", "1.5")->count(), 1500);
  EXPECT_FALSE(ParseDurationFlag("d", "-1s").ok());
  EXPECT_FALSE(ParseDurationFlag("d", "5h").ok());
  EXPECT_EQ(*ParseBytesFlag("b", "128K"), 131072u);
  EXPECT_EQ(*ParseBytesFlag("b", "4M"), 4194304u);
  EXPECT_FALSE(ParseBytesFlag("b", "4X").ok());
  EXPECT_FALSE(ParseCountFlag("n", "0", 1, 10).ok());
  auto list = ParseCountList("sweep", "1,2,4,8,16,32", 4096);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 6u);
  EXPECT_FALSE(ParseCountList("sweep", "1,,2", 4096).ok());
}

}  // namespace
}  // namespace fabric::probe
