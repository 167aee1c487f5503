// The emulated adapter's device side: configuration from the environment, the
// sysfs tree (port state, GIDs, counters) under the fixture root, the counters
// shared by every process on the device, and the report written at exit.
#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "emu.h"

namespace fabric::emu {
namespace {

constexpr uint32_t kSharedMagic = 0x454d5531;  // "EMU1"

std::string Env(const char* name, const char* fallback = "") {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string(fallback);
}

uint64_t EnvCount(const char* name) {
  std::string v = Env(name);
  return v.empty() ? 0 : std::strtoull(v.c_str(), nullptr, 10);
}

void MakeDirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      std::string part = path.substr(0, i);
      if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return;
    }
  }
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// Writes a whole file through a temporary name and a rename, so a reader
// never sees it half written.
void WriteFileAtomic(const std::string& path, const std::string& text, const std::string& tmp) {
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t n = ::write(fd, text.data(), text.size());
  ::close(fd);
  if (n == static_cast<ssize_t>(text.size())) ::rename(tmp.c_str(), path.c_str());
}

std::string ReadSmall(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buf[256];
  ssize_t n = ::read(fd, buf, sizeof(buf));
  ::close(fd);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

// The IB MTU a RoCE port runs on an Ethernet interface of this MTU (the
// headers RoCE v2 adds come off first, as the kernel's drivers compute it).
ibv_mtu MtuForNetdev(int netdev_mtu) {
  int room = netdev_mtu - 96;
  if (room >= 4096) return IBV_MTU_4096;
  if (room >= 2048) return IBV_MTU_2048;
  if (room >= 1024) return IBV_MTU_1024;
  if (room >= 512) return IBV_MTU_512;
  return IBV_MTU_256;
}

std::string GidText(const ibv_gid& g) {
  char out[40];
  std::snprintf(out, sizeof(out),
                "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x", g.raw[0],
                g.raw[1], g.raw[2], g.raw[3], g.raw[4], g.raw[5], g.raw[6], g.raw[7], g.raw[8],
                g.raw[9], g.raw[10], g.raw[11], g.raw[12], g.raw[13], g.raw[14], g.raw[15]);
  return out;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof(b), "\\u%04x", c);
      out += b;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

const char* CounterPath(Counter c) {
  switch (c) {
    case kXmitData:
      return "counters/port_xmit_data";
    case kRcvData:
      return "counters/port_rcv_data";
    case kXmitPackets:
      return "counters/port_xmit_packets";
    case kRcvPackets:
      return "counters/port_rcv_packets";
    case kNpCnpSent:
      return "hw_counters/np_cnp_sent";
    case kRpCnpHandled:
      return "hw_counters/rp_cnp_handled";
    case kOutOfBuffer:
      return "hw_counters/out_of_buffer";
    case kCounterCount:
      break;
  }
  return "";
}

int QueryPortEx(ibv_context* /*context*/, uint8_t port, ibv_port_attr* attr, size_t len) {
  if (len < sizeof(ibv_port_attr)) return EINVAL;
  return Emu().QueryPort(port, attr);
}

int PostRecv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad) {
  // Receive queues are not emulated: the probe only issues one-sided WRITEs.
  (void)qp;
  *bad = wr;
  return EOPNOTSUPP;
}
int ReqNotifyCq(ibv_cq* /*cq*/, int /*solicited*/) { return EOPNOTSUPP; }

}  // namespace

int Errno(int e) {
  errno = e;
  return -1;
}

Emulation& Emu() {
  // Never destroyed: other libraries' destructors may still call in at exit.
  // The report is written by the destructor function below.
  static Emulation* e = new Emulation();
  return *e;
}

Emulation::Emulation() {
  root_ = Env("FABRIC_EMU_SYSFS");
  device_ = Env("FABRIC_EMU_DEVICE", "emu0");
  netdev_ = Env("FABRIC_EMU_NETDEV", "lo");
  stats_path_ = Env("FABRIC_EMU_STATS");
  rate_text_ = Env("FABRIC_EMU_RATE", "100 Gb/sec (4X EDR)");
  cnp_every = EnvCount("FABRIC_EMU_CNP_EVERY");
  oob_every = EnvCount("FABRIC_EMU_OOB_EVERY");
  nak_from = EnvCount("FABRIC_EMU_NAK_FROM");
  if (auto pos = stats_path_.find("%p"); pos != std::string::npos) {
    stats_path_.replace(pos, 2, std::to_string(::getpid()));
  }
  vctx_ = std::make_unique<verbs_context>();
  std::memset(vctx_.get(), 0, sizeof(verbs_context));
  std::snprintf(device_struct_.name, sizeof(device_struct_.name), "%s", device_.c_str());
  std::snprintf(device_struct_.dev_name, sizeof(device_struct_.dev_name), "uverbs0");
  device_struct_.node_type = IBV_NODE_CA;
  device_struct_.transport_type = IBV_TRANSPORT_IB;
  ibv_context& ctx = vctx_->context;
  ctx.device = &device_struct_;
  ctx.cmd_fd = -1;
  ctx.async_fd = -1;
  ctx.num_comp_vectors = 1;
  ctx.abi_compat = __VERBS_ABI_IS_EXTENDED;
  ctx.ops.poll_cq = PollCq;
  ctx.ops.post_send = PostSend;
  ctx.ops.post_recv = PostRecv;
  ctx.ops.req_notify_cq = ReqNotifyCq;
  pthread_mutex_init(&ctx.mutex, nullptr);
  vctx_->sz = sizeof(verbs_context);
  vctx_->query_port = QueryPortEx;
  if (root_.empty()) return;  // no fixture root: no device, like a host without RDMA

  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq ifr{};
  std::snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", netdev_.c_str());
  int netdev_mtu = 1500;
  if (fd >= 0 && ::ioctl(fd, SIOCGIFMTU, &ifr) == 0) netdev_mtu = ifr.ifr_mtu;
  if (fd >= 0) ::close(fd);
  active_mtu_ = MtuForNetdev(netdev_mtu);
  SetUpSysfs();
  available_ = shared_ != nullptr;
  port_active_ = PortActive();
}

Emulation::~Emulation() = default;

void Emulation::SetUpSysfs() {
  port_dir_ = root_ + "/class/infiniband/" + device_ + "/ports/1";
  private_dir_ = root_ + "/.fabric-verbs-emulation/" + device_;
  MakeDirs(private_dir_);
  lock_fd_ = ::open((private_dir_ + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) return;
  ::flock(lock_fd_, LOCK_EX);
  std::string tmp = private_dir_ + "/tmp." + std::to_string(::getpid());
  MakeDirs(port_dir_ + "/counters");
  MakeDirs(port_dir_ + "/hw_counters");
  MakeDirs(port_dir_ + "/gids");
  MakeDirs(port_dir_ + "/gid_attrs/ndevs");
  MakeDirs(port_dir_ + "/gid_attrs/types");
  std::string dev_dir = root_ + "/class/infiniband/" + device_;
  auto ensure = [&](const std::string& path, const std::string& text) {
    if (!Exists(path)) WriteFileAtomic(path, text, tmp);
  };
  // The state file is the test's control: it may already say DOWN.
  ensure(port_dir_ + "/state", "4: ACTIVE\n");
  ensure(port_dir_ + "/phys_state", "5: LinkUp\n");
  ensure(port_dir_ + "/rate", rate_text_ + "\n");
  ensure(port_dir_ + "/link_layer", "Ethernet\n");
  ensure(dev_dir + "/node_type", "1: CA\n");
  ensure(dev_dir + "/fw_ver", "0.0.0 (fabric-ladder verbs emulation)\n");
  ensure(dev_dir + "/node_guid", "0000:0000:0000:0000\n");

  // GID table: RoCE v1 and v2 entries for each IP address of the interface,
  // the v2 IPv4 ones IPv4-mapped (what rdma_cm resolves an IPv4 peer to).
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) == 0) {
    for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
      if (a->ifa_addr == nullptr || netdev_ != a->ifa_name) continue;
      if (a->ifa_addr->sa_family != AF_INET && a->ifa_addr->sa_family != AF_INET6) continue;
      gids_.push_back(GidOf(a->ifa_addr));
    }
    ::freeifaddrs(list);
  }
  for (size_t i = 0; i < gids_.size(); ++i) {
    for (int type = 0; type < 2; ++type) {
      std::string idx = std::to_string(i * 2 + static_cast<size_t>(type));
      WriteFileAtomic(port_dir_ + "/gids/" + idx, GidText(gids_[i]) + "\n", tmp);
      WriteFileAtomic(port_dir_ + "/gid_attrs/ndevs/" + idx, netdev_ + "\n", tmp);
      WriteFileAtomic(port_dir_ + "/gid_attrs/types/" + idx,
                      type == 0 ? "IB/RoCE v1\n" : "RoCE v2\n", tmp);
    }
  }

  std::string state_path = private_dir_ + "/state";
  int sfd = ::open(state_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (sfd >= 0) {
    if (::ftruncate(sfd, sizeof(Shared)) == 0) {
      void* p = ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
      if (p != MAP_FAILED) shared_ = static_cast<Shared*>(p);
    }
    ::close(sfd);
  }
  if (shared_ != nullptr && shared_->magic != kSharedMagic) {
    std::memset(shared_, 0, sizeof(Shared));
    std::random_device rd;
    shared_->next_qpn = 0x100 + (rd() & 0xfff);
    shared_->next_key = 0x1000 + (rd() & 0xffff);
    shared_->magic = kSharedMagic;
  }
  ::flock(lock_fd_, LOCK_UN);
  for (int c = 0; c < kCounterCount; ++c) {
    if (!Exists(port_dir_ + "/" + CounterPath(static_cast<Counter>(c)))) {
      RenderCounter(static_cast<Counter>(c));
    }
  }
}

void Emulation::RenderCounter(Counter c) {
  ::flock(lock_fd_, LOCK_EX);
  uint64_t v = __atomic_load_n(&shared_->counters[c], __ATOMIC_SEQ_CST);
  // port_xmit_data and port_rcv_data count 4-octet words, like hardware.
  if (c == kXmitData || c == kRcvData) v /= 4;
  WriteFileAtomic(port_dir_ + "/" + CounterPath(c), std::to_string(v) + "\n",
                  private_dir_ + "/tmp." + std::to_string(::getpid()));
  ::flock(lock_fd_, LOCK_UN);
}

void Emulation::AddCounters(const std::vector<std::pair<Counter, uint64_t>>& adds) {
  if (shared_ == nullptr) return;
  for (const auto& [c, n] : adds) __atomic_fetch_add(&shared_->counters[c], n, __ATOMIC_SEQ_CST);
  for (const auto& [c, n] : adds) RenderCounter(c);
}

uint32_t Emulation::NewQpn() {
  return (__atomic_fetch_add(&shared_->next_qpn, 1, __ATOMIC_SEQ_CST)) & 0xffffff;
}

uint32_t Emulation::NewKey() {
  // mlx5-shaped: an index in the upper 24 bits, a variant byte below.
  uint32_t index = __atomic_fetch_add(&shared_->next_key, 1, __ATOMIC_SEQ_CST);
  return (index << 8) | ((index * 37u) & 0xff);
}

bool Emulation::PortActive() {
  std::string text = ReadSmall(port_dir_ + "/state");
  return std::atoi(text.c_str()) == IBV_PORT_ACTIVE;
}

int Emulation::QueryPort(uint8_t port, ibv_port_attr* attr) {
  if (!available_) return ENODEV;
  if (port != 1) return EINVAL;
  std::memset(attr, 0, sizeof(*attr));
  std::string state = ReadSmall(port_dir_ + "/state");
  std::string phys = ReadSmall(port_dir_ + "/phys_state");
  attr->state = static_cast<ibv_port_state>(std::atoi(state.c_str()));
  attr->phys_state = static_cast<uint8_t>(std::atoi(phys.c_str()));
  attr->max_mtu = IBV_MTU_4096;
  attr->active_mtu = active_mtu_;
  attr->gid_tbl_len = static_cast<int>(gids_.size() * 2);
  attr->port_cap_flags = IBV_PORT_CM_SUP | IBV_PORT_IP_BASED_GIDS;
  attr->max_msg_sz = 1u << 31;
  attr->pkey_tbl_len = 1;
  attr->active_width = 2;   // 4X
  attr->active_speed = 32;  // EDR
  attr->link_layer = IBV_LINK_LAYER_ETHERNET;
  return 0;
}

bool Emulation::HoldsAddress(const sockaddr* addr) {
  if (addr == nullptr) return false;
  ibv_gid want = GidOf(addr);
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return false;
  bool found = false;
  for (ifaddrs* a = list; a != nullptr && !found; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || netdev_ != a->ifa_name) continue;
    if (a->ifa_addr->sa_family != AF_INET && a->ifa_addr->sa_family != AF_INET6) continue;
    ibv_gid g = GidOf(a->ifa_addr);
    found = std::memcmp(g.raw, want.raw, sizeof(g.raw)) == 0;
  }
  ::freeifaddrs(list);
  return found;
}

ibv_gid Emulation::GidOf(const sockaddr* addr) {
  ibv_gid g{};
  if (addr->sa_family == AF_INET) {
    g.raw[10] = 0xff;
    g.raw[11] = 0xff;
    std::memcpy(&g.raw[12], &reinterpret_cast<const sockaddr_in*>(addr)->sin_addr, 4);
  } else if (addr->sa_family == AF_INET6) {
    std::memcpy(g.raw, &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr, 16);
  }
  return g;
}

int Emulation::GidIndexOf(const ibv_gid& gid) {
  for (size_t i = 0; i < gids_.size(); ++i) {
    if (std::memcmp(gids_[i].raw, gid.raw, sizeof(gid.raw)) == 0) {
      return static_cast<int>(i * 2 + 1);  // the RoCE v2 entry
    }
  }
  return -1;
}

void Emulation::StartThread() {
  if (thread_started_ || !available_) return;
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  inotify_fd_ = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (inotify_fd_ >= 0) {
    ::inotify_add_watch(inotify_fd_, port_dir_.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO);
  }
  thread_started_ = true;
  thread_ = std::thread([this] { Run(); });
}

void Emulation::Wake() {
  if (wake_fd_ < 0) return;
  uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof(one));
}

void Emulation::OnPortChange() {
  bool active = PortActive();
  if (active == port_active_) return;
  port_active_ = active;
  if (active) return;
  async_events.push_back("IBV_EVENT_PORT_ERR");
  // With the link down nothing is acknowledged: every queue pair with work
  // outstanding runs out of retries.
  for (auto& [qpn, qp] : qps) {
    if (!qp->sent.empty() || !qp->queued.empty()) FailQp(qp, IBV_WC_RETRY_EXC_ERR);
  }
}

void Emulation::Shutdown() {
  if (thread_started_) {
    stop_ = true;
    Wake();
    thread_.join();
    thread_started_ = false;
  }
  WriteReport();
}

void Emulation::WriteReport() {
  if (stats_path_.empty()) return;
  std::lock_guard<std::recursive_mutex> lock(mu);
  auto list = [](const std::vector<std::string>& v, bool quote) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) {
      if (i > 0) out += ",";
      out += quote ? JsonString(v[i]) : v[i];
    }
    return out + "]";
  };
  std::string j =
      "{\"pid\":" + std::to_string(::getpid()) + ",\"device\":" + JsonString(device_) +
      ",\"netdev\":" + JsonString(netdev_) + ",\"live\":{\"pd\":" + std::to_string(live_pds) +
      ",\"mr\":" + std::to_string(live_mrs) + ",\"cq\":" + std::to_string(live_cqs) +
      ",\"qp\":" + std::to_string(live_qps) + ",\"cm_id\":" + std::to_string(live_ids) +
      ",\"channel\":" + std::to_string(live_channels) + "}" +
      ",\"peak\":{\"qp\":" + std::to_string(peak_qps) + ",\"mr\":" + std::to_string(peak_mrs) +
      "}" + ",\"writes_completed\":" + std::to_string(writes_completed) +
      ",\"bytes_completed\":" + std::to_string(bytes_completed) +
      ",\"writes_received\":" + std::to_string(writes_received) +
      ",\"bytes_received\":" + std::to_string(bytes_received) +
      ",\"error_completions\":" + std::to_string(error_completions) +
      ",\"async_events\":" + list(async_events, true) + ",\"notes\":" + list(notes, true) +
      ",\"deregistered\":" + list(dereg_reports, false) + "}\n";
  WriteFileAtomic(stats_path_, j, stats_path_ + ".tmp");
}

// At load: the device is there before the program looks (its sysfs tree is
// written now, as a real one exists from boot).
__attribute__((constructor)) static void EmulationAtLoad() { Emu(); }

// At exit: stop the adapter thread and write the report (what is still
// registered is what the program left behind).
__attribute__((destructor)) static void EmulationAtExit() {
  Emulation& e = Emu();
  e.Shutdown();
}

}  // namespace fabric::emu
