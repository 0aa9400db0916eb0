// `sandbench-cli doctor`: what this machine's kernel offers the sandbox, and how to fix what
// is missing.
#pragma once

#include <string>
#include <vector>

namespace sb {

struct DoctorCheck {
    std::string name;
    bool ok = false;
    bool required = true; // a missing required feature means no sandbox can start
    std::string detail;
    std::string fix; // empty when ok
};

std::vector<DoctorCheck> runDoctor();

} // namespace sb
