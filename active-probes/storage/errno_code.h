// The error code of a failed system call's errno, where the storage probe's
// failure reason depends on it: ENOSPC is a full filesystem (reason
// no_space), everything else a plain error.
#pragma once

#include <cerrno>

#include "common/error_code.h"

namespace fabric::storage {

inline ErrorCode CodeOfErrno(int err) {
  return err == ENOSPC ? ErrorCode::kNoSpace : ErrorCode::kOther;
}

}  // namespace fabric::storage
