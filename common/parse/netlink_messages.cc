#include "common/parse/netlink_messages.h"

#include <linux/netlink.h>

#include <cstring>
#include <string>

namespace fabric {

Status WalkNetlinkMessages(std::string_view buffer, uint16_t type, std::string_view what,
                           bool& done, const std::function<Status(std::string_view)>& handle) {
  size_t offset = 0;
  while (offset + sizeof(nlmsghdr) <= buffer.size()) {
    nlmsghdr header;
    std::memcpy(&header, buffer.data() + offset, sizeof header);
    if (header.nlmsg_len < sizeof(nlmsghdr) || offset + header.nlmsg_len > buffer.size()) {
      return MakeError(std::string(what) + ": truncated netlink message at offset " +
                       std::to_string(offset));
    }
    std::string_view payload(buffer.data() + offset + NLMSG_HDRLEN,
                             header.nlmsg_len - NLMSG_HDRLEN);
    if (header.nlmsg_type == NLMSG_DONE) {
      done = true;
      return OkStatus();
    }
    if (header.nlmsg_type == NLMSG_ERROR) {
      // The kernel sends -errno; 64 bits so a corrupt INT_MIN cannot overflow.
      int64_t err = 0;
      if (payload.size() >= sizeof(int)) {
        int code;
        std::memcpy(&code, payload.data(), sizeof code);
        err = -int64_t{code};
      }
      if (err == 0) {  // An ACK.
        offset += NLMSG_ALIGN(header.nlmsg_len);
        continue;
      }
      return MakeError(std::string(what) + ": netlink error " +
                       (err > 0 && err < 4096 ? std::strerror(static_cast<int>(err))
                                              : "code " + std::to_string(-err)));
    }
    if (header.nlmsg_type == type) FABRIC_RETURN_IF_ERROR(handle(payload));
    offset += NLMSG_ALIGN(header.nlmsg_len);
  }
  // offset passes the end only by the last message's missing alignment padding.
  if (offset < buffer.size() && !done) {
    return MakeError(std::string(what) + ": " + std::to_string(buffer.size() - offset) +
                     " trailing bytes after the last netlink message");
  }
  return OkStatus();
}

}  // namespace fabric
