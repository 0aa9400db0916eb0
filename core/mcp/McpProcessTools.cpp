// The MCP tools that run commands in the sandbox: run_command and the started processes.
#include "mcp/McpToolsInternal.h"

#include <chrono>
#include <csignal>

namespace sb::mcp {

using json = nlohmann::json;

std::string approvalNote(const json& body)
{
    const json& r = body.value("approval", json::object());
    std::string what;
    for (const auto& a : r.value("argv", json::array()))
        what += (what.empty() ? "" : " ") + a.get<std::string>();
    return "waiting for approval in Sandbench (request " + std::to_string(r.value("id", 0)) + ": " +
           what + ")";
}

std::string refusalText(const json& exit)
{
    if (exit.contains("denied"))
        return "denied by the session's policy: " + exit.value("denied_command", std::string()) +
               " (" + exit["denied"].get<std::string>() +
               "). Do not retry the same command; ask the user or do without it.";
    return exit.value("error", std::string("the command did not run"));
}

bool refused(const json& exit)
{
    if (exit.contains("error")) return true;
    return exit.contains("denied") && exit.value("exit_code", json()) != json(0);
}

namespace {

long long nowMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

class RunCommand : public Call {
  public:
    explicit RunCommand(json args) : m_args(std::move(args)) {}
    void start() override
    {
        json request = {{"shell", m_args["command"]},
                        {"timeout_ms", m_args.value("timeout_seconds", 120) * 1000},
                        {"stdin", m_args.contains("stdin")}};
        if (m_args.contains("cwd")) request["cwd"] = m_args["cwd"];
        m_started = nowMs();
        m_exec = server->startExec(*this, request);
    }
    void onExecStarted(std::uint64_t, const json&) override
    {
        if (m_args.contains("stdin"))
            server->writeInput(m_exec, m_args["stdin"].get<std::string>(), true);
    }
    void onExecOutput(std::uint64_t, std::uint64_t stream, std::string_view bytes) override
    {
        (stream == proto::kExecStderr ? m_err : m_out).add(bytes);
    }
    void onExecEvent(std::uint64_t, const json& body) override
    {
        if (body.contains("approval")) server->progress(*this, approvalNote(body));
    }
    void onExecExit(std::uint64_t, const json& exit) override
    {
        if (refused(exit)) return server->finish(*this, failure(refusalText(exit)));
        std::string summary = exit["exit_code"].is_number()
                                  ? "exit code: " + std::to_string(exit["exit_code"].get<int>())
                                  : "ended by " + exit.value("signal", std::string("a signal"));
        if (exit.value("timed_out", false))
            summary += " (killed: it ran longer than " +
                       std::to_string(m_args.value("timeout_seconds", 120)) + " s)";
        std::string body = summary + "\n" + m_out.shown();
        if (!m_err.bytes.empty()) body += "\n--- stderr ---\n" + m_err.shown();
        if (exit.contains("denied")) body += "\nnote: " + refusalText(exit);
        json structured = {{"exit_code", exit["exit_code"]},
                           {"signal", exit["signal"]},
                           {"stdout", m_out.shown()},
                           {"stderr", m_err.shown()},
                           {"stdout_truncated", m_out.cut > 0},
                           {"stderr_truncated", m_err.cut > 0},
                           {"timed_out", exit.value("timed_out", false)},
                           {"duration_ms", nowMs() - m_started}};
        server->finish(*this, {{"content", text(body)}, {"structuredContent", structured}});
    }
    void cancel() override { server->signalExec(m_exec, SIGKILL); }

  private:
    json m_args;
    std::uint64_t m_exec = 0;
    long long m_started = 0;
    Captured m_out, m_err;
};

class StartProcess : public Call {
  public:
    explicit StartProcess(json args) : m_args(std::move(args)) {}
    void start() override
    {
        json request = {{"shell", m_args["command"]}, {"stdin", true}};
        if (m_args.contains("cwd")) request["cwd"] = m_args["cwd"];
        const std::uint64_t exec = server->startExec(*this, request);
        m_process = &server->addProcess(exec, m_args["command"].get<std::string>());
        m_deadline = nowMs() + 30000; // an exec waiting this long is waiting for approval
    }
    long long wakeAtMs() const override { return m_deadline; }
    void wake() override
    {
        Process& p = *m_process;
        if (!p.running && refused(p.exit))
            return server->finish(*this, failure(refusalText(p.exit)));
        if (p.pid == 0 && p.running && nowMs() < m_deadline) return;
        server->finish(*this, {{"content", text("started process " + p.id + " (pid " +
                                                std::to_string(p.pid) + ")")},
                               {"structuredContent", {{"process_id", p.id}, {"pid", p.pid}}}});
    }
    void onRefused(std::uint64_t, const std::string& message) override
    {
        m_process->running = false;
        server->finish(*this, failure(message));
    }

  private:
    json m_args;
    Process* m_process = nullptr;
    long long m_deadline = 0;
};

class ReadProcessOutput : public Call {
  public:
    ReadProcessOutput(Process* p, long long waitMs) : m_process(p), m_waitMs(waitMs) {}
    void start() override
    {
        m_deadline = nowMs() + m_waitMs;
        wake();
    }
    long long wakeAtMs() const override { return m_deadline; }
    void wake() override
    {
        Process& p = *m_process;
        const bool ready = !p.out.empty() || !p.err.empty() || !p.running;
        if (!ready && nowMs() < m_deadline) return;
        json structured = {{"stdout", std::string(completeUtf8Prefix(p.out))},
                           {"stderr", std::string(completeUtf8Prefix(p.err))},
                           {"running", p.running},
                           {"exit_code", p.running ? json() : p.exit.value("exit_code", json())}};
        std::string body = (p.running ? "running" : "ended") + std::string("\n") +
                           structured["stdout"].get<std::string>();
        if (!p.err.empty()) body += "\n--- stderr ---\n" + structured["stderr"].get<std::string>();
        p.out.erase(0, completeUtf8Prefix(p.out).size());
        p.err.erase(0, completeUtf8Prefix(p.err).size());
        server->finish(*this, {{"content", text(body)}, {"structuredContent", structured}});
    }

  private:
    Process* m_process;
    long long m_waitMs, m_deadline = 0;
};

class StopProcess : public Call {
  public:
    StopProcess(Process* p, int signal) : m_process(p), m_signal(signal) {}
    void start() override
    {
        if (m_process->running) server->signalExec(m_process->exec, m_signal);
        m_killAt = nowMs() + 5000;
        wake();
    }
    long long wakeAtMs() const override { return m_killed ? m_killAt + 3000 : m_killAt; }
    void wake() override
    {
        Process& p = *m_process;
        if (p.running && !m_killed && nowMs() >= m_killAt) {
            server->signalExec(p.exec, SIGKILL);
            m_killed = true;
        }
        if (p.running && nowMs() < wakeAtMs()) return;
        json structured = {{"exit_code", p.exit.value("exit_code", json())},
                           {"signal", p.exit.value("signal", json())},
                           {"running", p.running}};
        server->finish(*this, {{"content", text(p.running ? "it did not end" : "stopped " + p.id)},
                               {"structuredContent", structured}});
    }

  private:
    Process* m_process;
    int m_signal;
    long long m_killAt = 0;
    bool m_killed = false;
};

class WriteProcessInput : public Call {
  public:
    WriteProcessInput(Process* p, json args) : m_process(p), m_args(std::move(args)) {}
    void start() override
    {
        if (!m_process->running)
            return server->finish(*this, failure(m_process->id + " has ended"));
        server->writeInput(m_process->exec, m_args.value("input", std::string()),
                           m_args.value("close_stdin", false));
        server->finish(*this, {{"content", text("ok")}});
    }

  private:
    Process* m_process;
    json m_args;
};

} // namespace

std::unique_ptr<Call> makeRunCommand(const json& args)
{
    return std::make_unique<RunCommand>(args);
}

std::unique_ptr<Call> makeStartProcess(const json& args)
{
    return std::make_unique<StartProcess>(args);
}

std::unique_ptr<Call> makeReadProcessOutput(Process* p, long long waitMs)
{
    return std::make_unique<ReadProcessOutput>(p, waitMs);
}

std::unique_ptr<Call> makeStopProcess(Process* p, int signal)
{
    return std::make_unique<StopProcess>(p, signal);
}

std::unique_ptr<Call> makeWriteProcessInput(Process* p, const json& args)
{
    return std::make_unique<WriteProcessInput>(p, args);
}

} // namespace sb::mcp
