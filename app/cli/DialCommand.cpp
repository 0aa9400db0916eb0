// Other hosts over ssh (docs/remote.md): `dial-stdio`, a host's end, which ssh runs there, and
// the global --host (or SANDBENCH_HOST), which runs any command on that host through it.
#include "Commands.h"
#include "config.h"
#include "remote/DialServer.h"
#include "remote/RemoteHost.h"

#include <climits>
#include <cstdlib>
#include <string_view>
#include <unistd.h>

namespace sbcli {

namespace {

constexpr int kConnectionFailure = 255; // as ssh's own

std::string ownProgram()
{
    char path[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return "sandbench-cli";
    return std::string(path, static_cast<std::size_t>(n));
}

} // namespace

void addDialCommand(CLI::App& app)
{
    CLI::App* dial = app.add_subcommand(
        "dial-stdio", "Serve this user's sessions on stdin and stdout to sandbench-cli --host "
                      "on another machine (ssh runs it there; not for a terminal)");
    dial->callback([] {
        if (::isatty(0) || ::isatty(1))
            exitWith(fail("dial-stdio speaks a binary protocol on stdin and stdout: ssh runs it "
                          "for sandbench-cli --host ssh://… on another machine",
                          kUsageError));
        sb::remote::DialServerOptions options{ownProgram(), SANDBENCH_VERSION};
        if (auto e = sb::remote::serveDial(0, 1, options)) exitWith(fail(*e));
        exitWith(0);
    });
}

std::optional<int> relayToHost(int argc, char** argv)
{
    std::string host;
    int first = 1;
    const std::string_view arg1 = argc > 1 ? argv[1] : "";
    if (arg1 == "--host") {
        if (argc < 3) return fail("--host needs ssh://[USER@]HOST[:PORT]", kUsageError);
        host = argv[2];
        first = 3;
    } else if (arg1.starts_with("--host=")) {
        host = std::string(arg1.substr(7));
        first = 2;
    } else if (const char* env = std::getenv("SANDBENCH_HOST");
               env != nullptr && *env != '\0' && arg1 != "dial-stdio") {
        host = env; // on the host itself, dial-stdio serves whatever SANDBENCH_HOST says
    } else {
        return std::nullopt;
    }
    if (first < argc && std::string_view(argv[first]) == "dial-stdio")
        return fail("dial-stdio serves the host it runs on: it takes no --host", kUsageError);
    auto target = sb::remote::parseSshTarget(host);
    if (!target) return fail(target.error(), kUsageError);
    auto options = sb::remote::dialOptionsFromEnvironment();
    if (!options) return fail(options.error(), kUsageError);
    auto remote = sb::remote::RemoteHost::dial(*target, *options);
    if (!remote) return fail(remote.error(), kConnectionFailure);
    std::vector<std::string> args(argv + first, argv + argc);
    auto status = (*remote)->runCommand(args);
    if (!status) return fail(status.error(), kConnectionFailure);
    return *status;
}

} // namespace sbcli
