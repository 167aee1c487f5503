// The ladder section of the page at "/": one ladder per path as inline SVG (one bar per layer
// against line rate, the binding layer marked) with the verdicts and shapes in words. Every
// element a reader or test needs carries data- attributes (data-layer, data-binding, ...).
#pragma once

#include <string>
#include <vector>

#include "exporter/ladder/ladder_model.h"

namespace fabric {

// The HTML fragment (no <html>/<body>): `heading`, then each ladder in its own <section>.
// `note` is said above the ladders, e.g. why there are none.
std::string RenderLadderSection(const std::string& heading,
                                const std::vector<ladder::Ladder>& ladders,
                                const std::string& note);

// CSS the fragment relies on, for the page's <style>.
extern const char kLadderPageCss[];

}  // namespace fabric
