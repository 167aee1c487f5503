#pragma once

namespace fabric::probe {

// `fabric_probe storage`; argv[0] is "storage".
int RunStorage(int argc, char** argv);

}  // namespace fabric::probe
