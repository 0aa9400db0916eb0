// The MCP server (core/mcp) against a fake supervisor: the server runs its own loop on a thread,
// reading JSON-RPC lines from a pipe as `sandbench-cli mcp` reads stdin, and its control
// connection is one end of a socket pair whose other end the test answers. What the spec asks
// beyond the happy path: wrong tool arguments are tool results a model can act on, JSON-RPC
// batches under protocol 2025-03-26 only, the tools' annotations. The real SDK against a real
// session is tests/js/mcp.test.mjs.
#include "mcp/McpServer.h"

#include "TestSupport.h"
#include "control/ControlClient.h"

#include <csignal>
#include <fcntl.h>
#include <map>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using nlohmann::json;
using sb::proto::MsgType;

namespace {

constexpr int kWaitMs = 20000; // a bound against hangs, never a measure

class McpServer : public ::testing::Test {
  protected:
    McpServer()
    {
        int pair[2];
        EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
        m_client = sb::ControlClient::adopt(pair[0]);
        m_supervisor = sb::ControlClient::adopt(pair[1]);
        EXPECT_EQ(::pipe2(m_in, O_CLOEXEC), 0);
        EXPECT_EQ(::pipe2(m_out, O_CLOEXEC), 0);
        sb::SessionInfo session;
        session.id = "mcp-test";
        session.project = "/nonexistent/project";
        m_server = std::make_unique<sb::mcp::Server>(*m_client, session,
                                                     sb::mcp::ServerOptions{"0.0.0-test"});
        m_thread = std::thread([this] { (void)m_server->run(m_in[0], m_out[1]); });
    }

    ~McpServer() override
    {
        ::close(m_in[1]); // the client's end: the server answers what runs and returns
        m_supervisor.reset();
        m_thread.join();
        for (int fd : {m_in[0], m_out[0], m_out[1]})
            ::close(fd);
    }

    void sendLine(const std::string& line)
    {
        const std::string text = line + "\n";
        ASSERT_EQ(::write(m_in[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
    }
    void sendLine(const json& message) { sendLine(message.dump()); }

    // The server's next line, parsed; null after kWaitMs without one.
    json nextLine()
    {
        for (;;) {
            if (auto nl = m_buffer.find('\n'); nl != std::string::npos) {
                json line = json::parse(m_buffer.substr(0, nl), nullptr, false);
                m_buffer.erase(0, nl + 1);
                return line;
            }
            pollfd fd = {m_out[0], POLLIN, 0};
            if (::poll(&fd, 1, kWaitMs) != 1) return nullptr;
            char chunk[65536];
            ssize_t n = ::read(m_out[0], chunk, sizeof chunk);
            if (n <= 0) return nullptr;
            m_buffer.append(chunk, static_cast<std::size_t>(n));
        }
    }

    json request(int id, const std::string& method, json params = json::object())
    {
        return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
    }
    json toolCall(int id, const std::string& tool, json arguments)
    {
        return request(id, "tools/call", {{"name", tool}, {"arguments", std::move(arguments)}});
    }

    void initialize(const std::string& version)
    {
        sendLine(request(0, "initialize",
                         {{"protocolVersion", version},
                          {"capabilities", json::object()},
                          {"clientInfo", {{"name", "unit"}, {"version", "0"}}}}));
        json answer = nextLine();
        ASSERT_EQ(answer["result"]["protocolVersion"], version) << answer.dump();
        sendLine(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    }

    // The next control message the server sent to the session.
    sb::proto::Message fromServer()
    {
        auto m = m_supervisor->receive(kWaitMs);
        EXPECT_TRUE(m) << m.error().describe();
        return m ? *m : sb::proto::Message{};
    }

    // Answers an exec_start as the supervisor would: started, the output, exit code 0.
    void runExec(const sb::proto::Message& start, const std::string& stdoutText)
    {
        ASSERT_EQ(start.type, MsgType::ExecStart);
        const std::uint64_t id = start.body.at("id").get<std::uint64_t>();
        ASSERT_FALSE(m_supervisor->send(
            sb::proto::jsonMessage(MsgType::ExecStarted, {{"id", id}, {"pid", 42}})));
        sb::proto::Message out;
        out.type = MsgType::ExecOutput;
        out.seq = id << 8 | sb::proto::kExecStdout;
        out.bytes = stdoutText;
        ASSERT_FALSE(m_supervisor->send(out));
        ASSERT_FALSE(m_supervisor->send(sb::proto::jsonMessage(
            MsgType::ExecExit,
            {{"id", id}, {"exit_code", 0}, {"signal", nullptr}, {"timed_out", false}})));
    }

    static std::string textOf(const json& response)
    {
        std::string text;
        for (const auto& c : response["result"].value("content", json::array()))
            text += c.value("text", "");
        return text;
    }

    static bool contains(const std::string& text, const std::string& part)
    {
        return text.find(part) != std::string::npos;
    }

  private:
    int m_in[2] = {-1, -1}, m_out[2] = {-1, -1};
    std::unique_ptr<sb::ControlClient> m_client;

  protected:
    std::unique_ptr<sb::ControlClient> m_supervisor;

  private:
    std::unique_ptr<sb::mcp::Server> m_server;
    std::thread m_thread;
    std::string m_buffer;
};

// A tool result that failed as a tool (isError), not a JSON-RPC error; its text.
std::string toolError(const json& response)
{
    EXPECT_FALSE(response.contains("error")) << response.dump();
    EXPECT_EQ(response["result"].value("isError", false), true) << response.dump();
    std::string text;
    for (const auto& c : response["result"].value("content", json::array()))
        text += c.value("text", "");
    return text;
}

TEST_F(McpServer, WrongToolArgumentsAreToolErrorsNamingTheArgumentAndWhatItTakes)
{
    initialize("2025-11-25");
    struct Case {
        std::string tool;
        json arguments;
        std::vector<std::string> said;
    };
    const std::vector<Case> cases = {
        {"run_command", json::object(), {"'command'", "a string", "shell command line"}},
        {"run_command",
         {{"command", "true"}, {"timeout_seconds", "10"}},
         {"'timeout_seconds'", "an integer from 1 to 3600", "\"10\""}},
        {"run_command",
         {{"command", "true"}, {"timeout_seconds", 0}},
         {"'timeout_seconds'", "from 1 to 3600", "not number 0"}},
        {"run_command", {{"cmd", "true"}}, {"'command'"}}, // the required one is named first
        {"run_command",
         {{"command", "true"}, {"cmd", "true"}},
         {"no argument 'cmd'", "command, cwd, stdin, timeout_seconds"}},
        {"stop_process",
         {{"process_id", "p1"}, {"signal", "HUP"}},
         {"'signal'", "one of \"TERM\", \"KILL\", \"INT\"", "\"HUP\""}},
        {"read_process_output", {{"process_id", "p9"}}, {"no process \"p9\"", "start_process"}},
        {"get_changes", {{"paths", json::array({1})}}, {"'paths'", "an array of strings"}},
        {"write_file",
         {{"path", "a"}, {"content", "x"}, {"mode", "rwx"}},
         {"'mode'", "octal", "\"rwx\""}},
        {"list_directory", {{"recursive", "yes"}}, {"'recursive'", "a boolean"}},
    };
    int id = 1;
    for (const auto& c : cases) {
        sendLine(toolCall(id, c.tool, c.arguments));
        json response = nextLine();
        EXPECT_EQ(response["id"], id) << response.dump();
        const std::string text = toolError(response);
        for (const auto& part : c.said)
            EXPECT_TRUE(contains(text, part))
                << c.tool << " " << c.arguments.dump() << ": \"" << part << "\" not in: " << text;
        ++id;
    }
    // None of them reached the session: the first thing it hears of is a call that fits.
    sendLine(toolCall(id, "run_command", {{"command", "echo fits"}}));
    auto start = fromServer();
    EXPECT_EQ(start.body.value("shell", ""), "echo fits") << start.body.dump();
    runExec(start, "fits\n");
    json ran = nextLine();
    EXPECT_EQ(ran["id"], id);
    EXPECT_EQ(ran["result"]["structuredContent"]["stdout"], "fits\n") << ran.dump();
}

TEST_F(McpServer, UnknownToolsAndMalformedCallsStayProtocolErrors)
{
    initialize("2025-11-25");
    sendLine(toolCall(1, "no_such_tool", json::object()));
    json unknown = nextLine();
    EXPECT_EQ(unknown["error"]["code"], -32602) << unknown.dump();
    EXPECT_TRUE(contains(unknown["error"].value("message", ""), "no_such_tool")) << unknown.dump();
    sendLine(request(2, "tools/call", {{"name", "run_command"}, {"arguments", "echo"}}));
    json notObject = nextLine();
    EXPECT_EQ(notObject["error"]["code"], -32602) << notObject.dump();
}

TEST_F(McpServer, RunCommandAndStartProcessMayReachTheOpenWorld)
{
    initialize("2025-11-25");
    sendLine(request(1, "tools/list"));
    json list = nextLine();
    std::map<std::string, bool> openWorld;
    for (const auto& tool : list["result"]["tools"])
        openWorld[tool["name"]] = tool["annotations"].value("openWorldHint", false);
    ASSERT_EQ(openWorld.size(), 11u) << list.dump();
    for (const auto& [name, open] : openWorld)
        EXPECT_EQ(open, name == "run_command" || name == "start_process") << name;
}

// Under 2025-03-26 a batch is answered as one array once every request in it has its answer,
// each request as it would be alone; notifications get nothing.
TEST_F(McpServer, ABatchUnder20250326IsAnsweredAsOneArray)
{
    initialize("2025-03-26");
    sendLine(
        json::array({request(1, "ping"), toolCall(2, "run_command", {{"command", "echo batched"}}),
                     json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
                     toolCall(3, "run_command", json::object()), json{{"not", "a request"}},
                     request(4, "no/such/method"),
                     request(5, "initialize", {{"protocolVersion", "2025-03-26"}})}));
    auto start = fromServer();
    EXPECT_EQ(start.body.value("shell", ""), "echo batched") << start.body.dump();
    // The batch waits for its command: a ping sent after it is answered first.
    sendLine(request(9, "ping"));
    json ping = nextLine();
    ASSERT_TRUE(ping.is_object()) << ping.dump();
    EXPECT_EQ(ping["id"], 9) << ping.dump();
    runExec(start, "batched\n");

    json batch = nextLine();
    ASSERT_TRUE(batch.is_array()) << batch.dump();
    std::map<std::string, json> byId;
    for (const auto& r : batch) {
        EXPECT_EQ(r.value("jsonrpc", ""), "2.0") << r.dump();
        byId[r["id"].dump()] = r;
    }
    ASSERT_EQ(batch.size(), 6u) << batch.dump();
    EXPECT_EQ(byId["1"]["result"], json::object());
    EXPECT_EQ(byId["2"]["result"]["structuredContent"]["stdout"], "batched\n") << batch.dump();
    EXPECT_TRUE(contains(toolError(byId["3"]), "'command'"));
    EXPECT_EQ(byId["null"]["error"]["code"], -32600) << batch.dump();
    EXPECT_EQ(byId["4"]["error"]["code"], -32601) << batch.dump();
    EXPECT_EQ(byId["5"]["error"]["code"], -32600) << batch.dump();
    EXPECT_TRUE(contains(byId["5"]["error"].value("message", ""), "initialize")) << batch.dump();

    // Notifications alone get no answer at all; an empty batch is an invalid request.
    sendLine(json::array({json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}}));
    sendLine(json::array());
    json empty = nextLine();
    ASSERT_TRUE(empty.is_object()) << empty.dump();
    EXPECT_EQ(empty["error"]["code"], -32600) << empty.dump();
    EXPECT_EQ(empty["id"], nullptr);
}

// A call of a batch that the client cancels gets no answer; the rest of the batch does.
TEST_F(McpServer, ACancelledCallLeavesTheRestOfItsBatchAnswered)
{
    initialize("2025-03-26");
    sendLine(
        json::array({toolCall(1, "run_command", {{"command", "sleep 100"}}), request(2, "ping")}));
    auto start = fromServer();
    ASSERT_EQ(start.type, MsgType::ExecStart);
    sendLine(json{
        {"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 1}}}});
    json batch = nextLine();
    ASSERT_TRUE(batch.is_array()) << batch.dump();
    ASSERT_EQ(batch.size(), 1u) << batch.dump();
    EXPECT_EQ(batch[0]["id"], 2);
    auto kill = fromServer();
    EXPECT_EQ(kill.type, MsgType::ExecControl);
    EXPECT_EQ(kill.body.value("signal", 0), SIGKILL) << kill.body.dump();
}

// Revisions without batches (2024-11-05 had none yet; 2025-06-18 removed them) refuse a batch
// as a whole, saying why, and run none of it; so does a connection not initialized yet.
TEST_F(McpServer, ABatchIsRefusedUnlessTheConnectionAgreedOn20250326)
{
    const json batch =
        json::array({toolCall(1, "run_command", {{"command", "echo never"}}), request(2, "ping")});
    sendLine(batch);
    json before = nextLine();
    ASSERT_TRUE(before.is_object()) << before.dump();
    EXPECT_EQ(before["error"]["code"], -32600) << before.dump();
    EXPECT_TRUE(contains(before["error"].value("message", ""), "initialize")) << before.dump();

    for (const std::string version : {"2024-11-05", "2025-06-18", "2025-11-25"}) {
        initialize(version);
        sendLine(batch);
        json refused = nextLine();
        ASSERT_TRUE(refused.is_object()) << version << ": " << refused.dump();
        EXPECT_EQ(refused["id"], nullptr) << refused.dump();
        EXPECT_EQ(refused["error"]["code"], -32600) << refused.dump();
        const std::string message = refused["error"].value("message", "");
        EXPECT_TRUE(contains(message, "2025-03-26")) << message;
        EXPECT_TRUE(contains(message, version)) << message;
        EXPECT_TRUE(contains(message, "line of its own")) << message;
    }
    // Nothing of them ran: the session first hears of a call sent alone.
    sendLine(toolCall(3, "run_command", {{"command", "echo alone"}}));
    auto start = fromServer();
    EXPECT_EQ(start.body.value("shell", ""), "echo alone") << start.body.dump();
    runExec(start, "alone\n");
    EXPECT_EQ(nextLine()["id"], 3);
}

} // namespace
