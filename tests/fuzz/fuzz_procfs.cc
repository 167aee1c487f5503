// procfs parsers: softnet_stat, snmp/netstat, sysctl values, mountinfo,
// /proc/stat, CPU lists, mountstats, fstab and a process's stat and limits. Results are
// walked so a parser that returned garbage (dangling views, bad sizes) shows up under ASan.
#include <cstddef>
#include <cstdint>

#include "common/parse/cpu_list_parse.h"
#include "common/parse/fstab_parse.h"
#include "common/parse/mountinfo_parse.h"
#include "common/parse/mountstats_parse.h"
#include "common/parse/proc_stat_parse.h"
#include "common/parse/process_stat_parse.h"
#include "common/parse/snmp_parse.h"
#include "common/parse/softnet_parse.h"
#include "common/parse/sysctl_parse.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto in = fabric::fuzz::Split(data, size, 12);
  switch (in.selector) {
    case 0: {
      auto r = fabric::ParseSoftnetStat(in.text, "softnet_stat");
      if (r.ok()) {
        uint64_t sum = 0;
        for (const auto& cpu : *r) sum += cpu.processed + cpu.backlog_len.value_or(0);
        (void)sum;
      }
      break;
    }
    case 1: {
      auto r = fabric::ParseSnmpTable(in.text, "snmp");
      if (r.ok()) {
        (void)r->Get("Tcp", "RetransSegs");
        (void)r->HasPrefix("TcpExt");
        fabric::SnmpTable merged;
        merged.MergeFrom(*r);
      }
      break;
    }
    case 2:
      (void)fabric::ParseSysctlInt(in.text, "sysctl");
      (void)fabric::ParseSysctlWord(in.text, "sysctl");
      break;
    case 3:
      (void)fabric::ParseSysctlInts(in.text, 3, "tcp_rmem");
      break;
    case 4: {
      auto r = fabric::ParseMountInfo(in.text, "mountinfo");
      if (r.ok()) (void)fabric::FindMount(*r, 8, 1, "/var/lib/data");
      break;
    }
    case 5:
      (void)fabric::ParseProcStat(in.text);
      break;
    case 6:
      (void)fabric::ParseCpuList(in.text);
      break;
    case 7: {
      auto r = fabric::ParseMountStats(in.text, "mountstats");
      if (r.ok()) {
        uint64_t sum = 0;
        for (const auto& m : *r) {
          (void)m.Option("rsize");
          for (const auto& t : m.transports) sum += t.sends + (t.rdma ? t.rdma->read_chunks : 0);
          for (const auto& op : m.operations) sum += op.rtt_ms + op.name.size();
        }
        (void)sum;
      }
      break;
    }
    case 8: {
      auto r = fabric::ParseFstab(in.text, "fstab");
      if (r.ok()) {
        for (const auto& e : *r) (void)fabric::FindMountOption(e.options, "wsize");
      }
      break;
    }
    case 9:
      (void)fabric::ParseProcessStat(in.text);
      break;
    case 10:
      (void)fabric::ParseBootTime(in.text);
      break;
    case 11:
      (void)fabric::ParseMaxOpenFiles(in.text);
      break;
  }
  return 0;
}
