// The MCP server (`sandbench-cli mcp`): the Model Context Protocol over stdio (newline-
// delimited JSON-RPC 2.0) in front of one running session. A thin translation: every tool is
// one or a few requests of the control protocol (exec, files) and their replies, so a command
// an agent runs through it is approved, recorded and shown like any other; no tool applies
// changes to the real project. Tools and their limits: docs/mcp.md.
//
// One thread, one poll() over stdin and the session's control socket: calls run concurrently,
// each waiting for its own replies. A client that negotiated protocol 2025-03-26 may send
// JSON-RPC batches (the only revision that has them); their answers go out together.
#pragma once

#include "base/Error.h"
#include "base/Session.h"
#include "control/ControlClient.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace sb::mcp {

// Each stream of run_command's result is cut here, with a note saying how much was left out.
constexpr std::size_t kMaxToolOutput = 64 * 1024;
// What start_process keeps of a process's unread output, per stream.
constexpr std::size_t kMaxProcessBuffer = 1024 * 1024;

class Server;

// A JSON-RPC batch being answered: its responses wait here until every request in it has one,
// then go out as one array.
struct Batch {
    nlohmann::json responses = nlohmann::json::array();
    std::size_t running = 0; // its tools/calls still without an answer
    bool reading = true;     // its requests are still being read
};

// One tools/call in progress. It sends control requests through the server and hears about
// their replies; it ends by Server::finish().
class Call {
  public:
    virtual ~Call() = default;
    virtual void start() = 0;
    virtual void onExecStarted(std::uint64_t /*exec*/, const nlohmann::json& /*body*/) {}
    virtual void onExecOutput(std::uint64_t /*exec*/, std::uint64_t /*stream*/,
                              std::string_view /*bytes*/)
    {
    }
    virtual void onExecEvent(std::uint64_t /*exec*/, const nlohmann::json& /*body*/) {}
    virtual void onExecExit(std::uint64_t /*exec*/, const nlohmann::json& /*body*/) {}
    virtual void onFileReply(std::uint64_t /*request*/, const nlohmann::json& /*body*/) {}
    // The supervisor refused one of its requests (an error naming it).
    virtual void onRefused(std::uint64_t request, const std::string& message);
    virtual void cancel() {}                          // the client cancelled: stop what runs
    virtual long long wakeAtMs() const { return -1; } // steady-clock ms; -1: never
    virtual void wake() {}

    Server* server = nullptr;
    nlohmann::json id; // the JSON-RPC request's
    std::optional<nlohmann::json> progressToken;
    std::shared_ptr<Batch> batch; // the batch it came in, if any
    bool done = false;
};

// A process start_process started: it outlives the call, its output waits to be read.
struct Process {
    std::string id; // "p1", …
    std::uint64_t exec = 0;
    std::int64_t pid = 0;
    std::string out, err; // unread output, the oldest dropped past kMaxProcessBuffer
    std::size_t droppedOut = 0, droppedErr = 0;
    bool running = true;
    nlohmann::json exit; // the exec_exit body once it ended
    std::string command;
};

struct ServerOptions {
    std::string version;        // the server's, for serverInfo
    std::string origin = "mcp"; // who asked, in records; "mcp:<client>" once the client is known
};

class Server {
  public:
    // Serves `session` through `client` (a connection that speaks version 2).
    Server(ControlClient& client, SessionInfo session, ServerOptions options);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    // Reads requests from `in`, writes answers to `out`, until `in` ends (no error; requests
    // in flight are answered first) or the session does (an error saying so).
    Status run(int in, int out);
    // One line of input, as run() reads it. Exposed for the tests and the fuzz target.
    void onLine(std::string_view line);
    // Where answers go instead of `out` (tests).
    void setSink(std::function<void(const std::string&)> sink) { m_sink = std::move(sink); }

    // For the calls (McpProcessTools.cpp, McpFileTools.cpp).
    std::uint64_t startExec(Call& call, nlohmann::json request);
    std::uint64_t fileRequest(Call& call, nlohmann::json request);
    void signalExec(std::uint64_t exec, int signal);
    void writeInput(std::uint64_t exec, std::string_view bytes, bool close);
    void progress(Call& call, const std::string& message);
    void finish(Call& call, nlohmann::json result);
    Process& addProcess(std::uint64_t exec, std::string command);
    Process* process(const std::string& id);
    const SessionInfo& session() const { return m_session; }
    const std::string& origin() const { return m_origin; }

  private:
    void onMessage(const nlohmann::json& message);
    void onBatch(const nlohmann::json& batch);
    void onRequest(const nlohmann::json& message);
    // A response: into the batch being read, if any, else out.
    void answer(nlohmann::json response);
    // A call of a batch has its answer (or will have none, cancelled): the batch may be done.
    void settle(Call& call);
    void flush(Batch& batch);
    void respond(const nlohmann::json& id, nlohmann::json result);
    void respondError(const nlohmann::json& id, int code, const std::string& message);
    void send(const nlohmann::json& message);
    void callTool(const nlohmann::json& id, const nlohmann::json& params);
    Status onSessionMessage(proto::Message& m);
    void onProcessMessage(Process& p, const proto::Message& m);
    long long nextWakeMs() const;
    void reap();
    // After the client's end: waits (boundedly) for the answers to requests in flight.
    Status drain();

    ControlClient& m_client;
    SessionInfo m_session;
    ServerOptions m_options;
    std::string m_origin;
    std::string m_protocol;           // the revision initialize agreed on; empty before
    std::shared_ptr<Batch> m_reading; // the batch whose requests are being read
    int m_out = 1;
    std::function<void(const std::string&)> m_sink;
    std::uint64_t m_nextId = 1;
    std::map<std::string, std::unique_ptr<Call>> m_calls; // by the JSON-RPC id's text
    std::map<std::uint64_t, Call*> m_owners;              // exec and file request ids
    std::map<std::string, std::unique_ptr<Process>> m_processes;
    std::map<std::uint64_t, Process*> m_processExecs;
    std::uint64_t m_nextProcess = 1;
};

// The tools' descriptions and input schemas (tools/list).
const nlohmann::json& toolList();
// A call of tool `name` with `arguments`; nullptr with `error` set for an unknown tool (a
// JSON-RPC error). Arguments the tool cannot take give a call that fails as a tool (isError),
// its message naming the argument and what it expects, for the model to correct itself.
std::unique_ptr<Call> makeCall(Server& server, const std::string& name,
                               const nlohmann::json& arguments, std::string& error);

} // namespace sb::mcp
