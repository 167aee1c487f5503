// Which way a probe's traffic goes: a run's choice (send, receive or both)
// and the `direction` label of the records it makes (send, receive, or none
// for probes without one: storage, path).
#pragma once

#include <optional>
#include <string_view>

#include "common/result.h"

namespace fabric::probe {

enum class Direction { kNone, kSend, kReceive, kBoth };

// "" (kNone), "send", "receive", "both".
std::string_view DirectionName(Direction d);
// A run's direction as a flag gives it: send, receive or both.
Result<Direction> ParseDirection(std::string_view s);
// A record's direction label ("", send, receive); nullopt for anything else.
std::optional<Direction> RecordDirectionFromName(std::string_view s);

}  // namespace fabric::probe
