// The MCP server's input (core/mcp): each line of the input is one line from the MCP client,
// as `sandbench-cli mcp` reads them from stdin. Its control connection goes to a socket this
// target drains, a supervisor that never answers. Checked beyond "no crash": every line the
// server writes is one JSON-RPC 2.0 object or a batch's answers (an array of responses), and a
// line gets one response at most besides batch answers (a cancel may complete an earlier batch).
#include "FuzzCheck.h"
#include "control/ControlClient.h"
#include "mcp/McpServer.h"

#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <string_view>
#include <sys/socket.h>
#include <unistd.h>

namespace {

using sbfuzz::check;

void drain(int fd)
{
    char buf[65536];
    while (::read(fd, buf, sizeof buf) > 0) {
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const bool once = [] {
        ::setenv("XDG_STATE_HOME", "/nonexistent/sandbench-fuzz", 1); // no real session is read
        ::setenv("XDG_RUNTIME_DIR", "/nonexistent/sandbench-fuzz", 1);
        return true;
    }();
    (void)once;
    int fds[2];
    check(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0, "socketpair");
    ::fcntl(fds[1], F_SETFL, O_NONBLOCK);
    auto client = sb::ControlClient::adopt(fds[0]);
    sb::SessionInfo session;
    session.id = "fuzz";
    session.project = "/nonexistent/project";
    {
        sb::mcp::Server server(*client, session, {"0.0.0-fuzz"});
        int responses = 0; // to the line being read
        server.setSink([&responses](const std::string& line) {
            check(!line.empty() && line.back() == '\n', "an answer ends with a newline");
            check(line.find('\n') == line.size() - 1, "an answer is one line");
            auto message = nlohmann::json::parse(line, nullptr, false);
            auto response = [](const nlohmann::json& m) {
                check(m.is_object(), "an answer is a JSON object");
                check(m.value("jsonrpc", nlohmann::json()) == "2.0", "jsonrpc is \"2.0\"");
                check(m.contains("result") != m.contains("error") || m.contains("method"),
                      "a response has a result or an error, not both");
            };
            if (message.is_array()) {
                check(!message.empty(), "a batch's answer is not empty");
                for (const auto& m : message) {
                    response(m);
                    check(!m.contains("method"), "a batch's answer holds responses only");
                }
                return;
            }
            response(message);
            if (!message.contains("method")) check(++responses == 1, "one response a line at most");
        });
        std::string_view input(reinterpret_cast<const char*>(data), size);
        while (!input.empty()) {
            std::size_t end = input.find('\n');
            responses = 0;
            server.onLine(input.substr(0, end));
            drain(fds[1]);
            if (end == std::string_view::npos) break;
            input.remove_prefix(end + 1);
        }
    }
    ::close(fds[1]);
    return 0;
}
