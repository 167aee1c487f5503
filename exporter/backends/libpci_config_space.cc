// The libpci backend. libpci reports fatal problems (an unreadable or
// malformed dump file, out of memory) through pci_access::error, which must
// not return and by default exits the process. We trap it: the callback
// longjmp()s back to the Trapped() call that started the libpci operation,
// which turns it into an error Result. The code between setjmp and the
// longjmp is only libpci's C and lambdas holding trivially destructible
// state, so no C++ destructor is skipped.
#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <utility>

#include "common/log.h"
#include "common/parse/pcie_sysfs_parse.h"
#include "exporter/backends/pci_config_space.h"

extern "C" {
#include <pci/pci.h>
}

namespace fabric {
namespace {

struct ErrorTrap {
  std::jmp_buf env;
  char message[512];
};

thread_local ErrorTrap* current_trap = nullptr;

// pci_access::error points to an __attribute__((noreturn)) function. For clang
// (and clang-tidy) that attribute is part of the function's type and
// [[noreturn]] is not, so only this spelling can be assigned to it.
__attribute__((noreturn)) void OnLibpciError(char* format, ...) {
  ErrorTrap* trap = current_trap;
  if (trap == nullptr) {
    // Only reachable if libpci is called outside Trapped(): a bug here.
    std::fputs("fabric_exporter: libpci error outside a trap\n", stderr);
    std::abort();
  }
  va_list args;
  va_start(args, format);
  std::vsnprintf(trap->message, sizeof trap->message, format, args);
  va_end(args);
  std::longjmp(trap->env, 1);
}

void OnLibpciWarning(char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  log::Debug("libpci warning", {{"msg", message}});
}

void OnLibpciDebug(char*, ...) {}

// Runs `fn`, which may call libpci, with libpci's fatal errors returned as
// an error. `fn` must only hold trivially destructible locals.
template <typename Fn>
Status Trapped(Fn&& fn) {
  ErrorTrap trap;
  trap.message[0] = '\0';
  ErrorTrap* const previous = current_trap;
  current_trap = &trap;
  if (setjmp(trap.env) != 0) {
    current_trap = previous;
    return MakeError(std::string("libpci: ") + trap.message);
  }
  fn();
  current_trap = previous;
  return OkStatus();
}

// RAII owner of a pci_access. Parameters are kept alive here because libpci
// stores the pointers it is given.
class LibpciAccess {
 public:
  LibpciAccess(unsigned int method, std::string param, std::string value, std::string ids_file)
      : method_(method),
        param_(std::move(param)),
        value_(std::move(value)),
        ids_file_(std::move(ids_file)) {}
  ~LibpciAccess() {
    if (access_ != nullptr) {
      pci_access* a = access_;
      (void)Trapped([a] { pci_cleanup(a); });
    }
  }
  LibpciAccess(const LibpciAccess&) = delete;
  LibpciAccess& operator=(const LibpciAccess&) = delete;

  // `with_method` false: only the name database, no device access (names
  // must not depend on the device source being readable).
  Status Init(bool with_method = true) {
    unsigned int method = method_;
    char* param = param_.data();
    char* value = value_.data();
    char* ids = ids_file_.empty() ? nullptr : ids_file_.data();
    pci_access** out = &access_;
    return Trapped([=] {
      pci_access* a = pci_alloc();
      *out = a;
      a->error = OnLibpciError;
      a->warning = OnLibpciWarning;
      a->debug = OnLibpciDebug;
      a->method = method;
      if (ids != nullptr) pci_set_name_list_path(a, ids, 0);
      if (!with_method) return;
      pci_set_param(a, param, value);
      pci_init(a);
    });
  }

  pci_access* get() const { return access_; }

 private:
  unsigned int method_;
  std::string param_;
  std::string value_;
  std::string ids_file_;
  pci_access* access_ = nullptr;
};

// Reads one device's Express registers; returns false when it has none.
// Trivially destructible state only: called inside Trapped().
bool ReadExpressOf(pci_access* a, const PciAddress& addr, ExpressRegisters* regs) {
  pci_dev* d = pci_get_dev(a, static_cast<int>(addr.domain), static_cast<int>(addr.bus),
                           static_cast<int>(addr.device), static_cast<int>(addr.function));
  bool found = false;
  if (pci_read_word(d, PCI_VENDOR_ID) != 0xffff) {
    if (pci_cap* cap = pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL)) {
      int base = static_cast<int>(cap->addr);
      regs->flags = pci_read_word(d, base + PCI_EXP_FLAGS);
      regs->link_cap = pci_read_long(d, base + PCI_EXP_LNKCAP);
      regs->link_status = pci_read_word(d, base + PCI_EXP_LNKSTA);
      if (regs->flags & PCI_EXP_FLAGS_SLOT)
        regs->slot_cap = pci_read_long(d, base + PCI_EXP_SLTCAP);
      if ((regs->flags & PCI_EXP_FLAGS_VERS) >= 2) {
        regs->link_cap2 = pci_read_long(d, base + PCI_EXP_LNKCAP2);
      }
      // All-ones registers are what an unreadable region reads as.
      found = regs->flags != 0xffff;
    }
  }
  pci_free_dev(d);
  return found;
}

class LibpciConfigSpace : public PciConfigSpace {
 public:
  LibpciConfigSpace(unsigned int method, std::string param, std::string value, std::string ids_file,
                    std::string_view kind)
      : method_(method),
        param_(std::move(param)),
        value_(std::move(value)),
        ids_file_(std::move(ids_file)),
        kind_(kind) {}

  Result<std::map<std::string, ExpressRegisters>> ReadExpress(
      const std::vector<std::string>& addresses) override {
    // A fresh access per scrape: devices come and go (hot-plug, SR-IOV), and
    // the dump file may be replaced.
    LibpciAccess access(method_, param_, value_, ids_file_);
    FABRIC_RETURN_IF_ERROR(access.Init());
    std::map<std::string, ExpressRegisters> out;
    for (const auto& address : addresses) {
      auto parsed = ParsePciAddress(address);
      if (!parsed) continue;
      ExpressRegisters regs;
      bool found = false;
      pci_access* a = access.get();
      PciAddress addr = *parsed;
      ExpressRegisters* regs_ptr = &regs;
      bool* found_ptr = &found;
      FABRIC_RETURN_IF_ERROR(Trapped(
          [a, addr, regs_ptr, found_ptr] { *found_ptr = ReadExpressOf(a, addr, regs_ptr); }));
      if (found) out.emplace(address, regs);
    }
    return out;
  }

  PciNames Names(uint16_t vendor, uint16_t device, uint32_t class_code) override {
    uint64_t key = (uint64_t{vendor} << 40) | (uint64_t{device} << 24) | class_code;
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    PciNames names;
    if (names_ == nullptr && !names_failed_) {
      names_ = std::make_unique<LibpciAccess>(method_, param_, value_, ids_file_);
      if (auto status = names_->Init(/*with_method=*/false); !status.ok()) {
        log::Warn("pci.ids names unavailable", {{"err", status.error().message}});
        names_.reset();
        names_failed_ = true;
      }
    }
    if (names_ != nullptr) {
      names.vendor = Lookup(PCI_LOOKUP_VENDOR, vendor, 0);
      names.device = Lookup(PCI_LOOKUP_DEVICE, vendor, device);
      names.class_name = Lookup(PCI_LOOKUP_CLASS, class_code >> 8, 0);
    }
    cache_.emplace(key, names);
    return names;
  }

  std::string_view kind() const override { return kind_; }

 private:
  std::string Lookup(int what, unsigned int a1, unsigned int a2) {
    char buf[256];
    const char* name = nullptr;
    pci_access* a = names_->get();
    const char** name_ptr = &name;
    char* b = buf;
    // The hardware database (udev hwdb) is not consulted, so names come from
    // the one pci.ids file and are the same on every host with that file.
    int flags = what | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB;
    auto status = Trapped([=] {
      if (what == PCI_LOOKUP_VENDOR || what == PCI_LOOKUP_CLASS) {
        *name_ptr = pci_lookup_name(a, b, sizeof buf, flags, a1);
      } else {
        *name_ptr = pci_lookup_name(a, b, sizeof buf, flags, a1, a2);
      }
    });
    return status.ok() && name != nullptr ? std::string(name) : std::string();
  }

  unsigned int method_;
  std::string param_;
  std::string value_;
  std::string ids_file_;
  std::string_view kind_;
  std::unique_ptr<LibpciAccess> names_;
  bool names_failed_ = false;
  std::map<uint64_t, PciNames> cache_;
};

}  // namespace

std::unique_ptr<PciConfigSpace> MakeLibpciSysfs(std::string sysfs_bus_pci, std::string ids_file) {
  return std::make_unique<LibpciConfigSpace>(PCI_ACCESS_SYS_BUS_PCI, "sysfs.path",
                                             std::move(sysfs_bus_pci), std::move(ids_file),
                                             "libpci-sysfs");
}

std::unique_ptr<PciConfigSpace> MakeLibpciDump(std::string dump_file, std::string ids_file) {
  return std::make_unique<LibpciConfigSpace>(PCI_ACCESS_DUMP, "dump.name", std::move(dump_file),
                                             std::move(ids_file), "libpci-dump");
}

}  // namespace fabric
