#include "active-probes/probe/direction.h"

#include <string>

namespace fabric::probe {

std::string_view DirectionName(Direction d) {
  switch (d) {
    case Direction::kNone:
      return "";
    case Direction::kSend:
      return "send";
    case Direction::kReceive:
      return "receive";
    case Direction::kBoth:
      return "both";
  }
  return "?";
}

Result<Direction> ParseDirection(std::string_view s) {
  if (s == "send") return Direction::kSend;
  if (s == "receive") return Direction::kReceive;
  if (s == "both") return Direction::kBoth;
  return MakeError(ErrorCode::kUsage,
                   "unknown direction \"" + std::string(s) + "\" (send, receive, both)");
}

std::optional<Direction> RecordDirectionFromName(std::string_view s) {
  for (Direction d : {Direction::kNone, Direction::kSend, Direction::kReceive}) {
    if (s == DirectionName(d)) return d;
  }
  return std::nullopt;
}

}  // namespace fabric::probe
