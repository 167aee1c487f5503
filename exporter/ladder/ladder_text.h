// The ladder as text: a table with bars for a terminal (`fabric_probe ladder`) and JSON for
// scripts. The HTML page renders the same Ladder (exporter/pages/ladder_page.h).
#pragma once

#include <string>

#include "exporter/ladder/ladder_model.h"

namespace fabric::ladder {

// One row per layer with a bar of Unicode block characters, the binding layer marked, then the
// binding sentence, the self-check verdicts and the detected shapes.
std::string RenderLadderTable(const Ladder& ladder, int bar_width = 24);

// The ladder as one JSON object (layer ids, bytes/s, fractions, binding, verdicts, shapes).
std::string LadderToJson(const Ladder& ladder);

}  // namespace fabric::ladder
