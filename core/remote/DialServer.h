// The remote end of a dial stream: `sandbench-cli dial-stdio`, run by ssh on the remote host
// as the user who logged in. On its stdin and stdout it lists that user's running sessions,
// opens channels to their control sockets (the supervisor checks this process as it checks
// any local client: same user, outside every sandbox), and runs sandbench-cli commands whose
// terminal or pipes it relays (the commands that read this host's files: recordings,
// changes, run and start). Nothing else is reachable through it: no agent socket, no port,
// no other program. docs/remote.md describes the protocol.
#pragma once

#include "base/Error.h"

#include <string>

namespace sb::remote {

struct DialServerOptions {
    std::string program; // the sandbench-cli that runs relayed commands
    std::string version; // Sandbench's version, for the welcome
};

// Serves the stream on `in` and `out` until it ends (no error) or breaks (its error). Commands
// still running when it ends get SIGHUP, as the programs of a dropped ssh session do.
Status serveDial(int in, int out, const DialServerOptions& options);

} // namespace sb::remote
