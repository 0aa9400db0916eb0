// The TCP ports something listens on in a network namespace, as the kernel lists them in
// /proc/PID/net/tcp and tcp6 (PID: any process in that namespace; the sandbox's init).
#pragma once

#include "base/Error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace sb {

struct ListeningPort {
    std::uint16_t port = 0;
    std::string address; // "127.0.0.1", "0.0.0.0", "::", "::1", …
    bool operator==(const ListeningPort&) const = default;
};

// From the text of one of those files (`v6`: tcp6), in the file's order; lines that are not a
// listening socket are skipped, and so is a line the kernel would not write.
std::vector<ListeningPort> parseListeningPorts(std::string_view procNetTcp, bool v6);

// Both files of `pid`'s namespace, sorted by port then address, without repeats.
Result<std::vector<ListeningPort>> listeningPorts(pid_t pid);

} // namespace sb
