#include "common/parse/collective_measurement.h"

namespace fabric {

const char* CollectiveFailureName(CollectiveFailure failure) {
  switch (failure) {
    case CollectiveFailure::kSyntax:
      return "syntax";
    case CollectiveFailure::kTruncated:
      return "truncated";
    case CollectiveFailure::kNoResults:
      return "no_results";
    case CollectiveFailure::kUnreadable:
      return "unreadable";
    case CollectiveFailure::kTooLarge:
      return "too_large";
  }
  return "syntax";
}

}  // namespace fabric
