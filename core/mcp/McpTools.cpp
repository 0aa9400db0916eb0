// The MCP server's tools: each one a few control-protocol requests (McpServer.h). Their
// descriptions are written for a model: what the tool does, where it runs, what it returns.
#include "base/Bytes.h"
#include "base/Paths.h"
#include "mcp/McpServer.h"
#include "workspace/Workspace.h"

#include <chrono>
#include <csignal>

namespace sb::mcp {

using json = nlohmann::json;

namespace {

long long nowMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

json text(const std::string& s)
{
    return json::array({{{"type", "text"}, {"text", s}}});
}

json failure(const std::string& message)
{
    return {{"content", text(message)}, {"isError", true}};
}

json schema(json properties, std::vector<std::string> required)
{
    return {{"type", "object"},
            {"properties", std::move(properties)},
            {"required", std::move(required)},
            {"additionalProperties", false}};
}

json tool(const char* name, const char* title, const char* description, json input, bool readOnly,
          bool destructive)
{
    return {{"name", name},
            {"title", title},
            {"description", description},
            {"inputSchema", std::move(input)},
            {"annotations",
             {{"title", title},
              {"readOnlyHint", readOnly},
              {"destructiveHint", destructive},
              {"openWorldHint", false}}}};
}

const json kString = {{"type", "string"}};

// Output for a model: the text as it is, cut past kMaxToolOutput with a note.
struct Captured {
    std::string bytes;
    std::size_t cut = 0;
    void add(std::string_view b)
    {
        const std::size_t room = kMaxToolOutput > bytes.size() ? kMaxToolOutput - bytes.size() : 0;
        bytes.append(b.substr(0, room));
        cut += b.size() > room ? b.size() - room : 0;
    }
    std::string shown() const
    {
        std::string s(completeUtf8Prefix(bytes));
        if (cut > 0)
            s += "\n[… " + std::to_string(cut + bytes.size() - completeUtf8Prefix(bytes).size()) +
                 " more bytes cut: the output is longer than " + std::to_string(kMaxToolOutput) +
                 " bytes; redirect it to a file and read parts of it]";
        return s;
    }
};

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

// The exec failed for the policy's or the sandbox's reasons, not its own: a denial that ended
// it (its exit is not 0), or an error that kept it from running.
bool refused(const json& exit)
{
    if (exit.contains("error")) return true;
    return exit.contains("denied") && exit.value("exit_code", json()) != json(0);
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

// A file request's failure as the model should read it.
std::string fileError(const json& reply, const std::string& path)
{
    const json& e = reply.value("error", json::object());
    const std::string code = e.value("code", "");
    if (code == "not_found") return "no such file or folder: " + path;
    return e.value("message", std::string("failed: ") + path);
}

class ReadFile : public Call {
  public:
    explicit ReadFile(json args) : m_args(std::move(args)) {}
    void start() override
    {
        json r = {{"op", "read"}, {"path", m_args["path"]}};
        if (m_args.contains("offset")) r["offset"] = m_args["offset"];
        if (m_args.contains("limit")) r["limit"] = m_args["limit"];
        server->fileRequest(*this, r);
    }
    void onFileReply(std::uint64_t, const json& reply) override
    {
        const std::string path = m_args["path"].get<std::string>();
        if (!reply.value("ok", false))
            return server->finish(*this, failure(fileError(reply, path)));
        auto data = fromBase64(reply.value("data_base64", std::string()));
        const std::uint64_t size = reply.value("size", std::uint64_t{0});
        const std::uint64_t offset = reply.value("offset", std::uint64_t{0});
        json structured = {{"size", size}, {"offset", offset}, {"eof", reply.value("eof", true)}};
        if (!data) return server->finish(*this, failure("a malformed reply"));
        if (!isValidUtf8(completeUtf8Prefix(*data))) {
            structured["base64"] = reply["data_base64"];
            return server->finish(
                *this, {{"content", text(path + " is a binary file (" + std::to_string(size) +
                                         " bytes); its bytes are in structuredContent.base64")},
                        {"structuredContent", structured}});
        }
        std::string body = *data;
        if (!reply.value("eof", true))
            body += "\n[… the file goes on: " + std::to_string(size - offset - data->size()) +
                    " more bytes; read on with offset " + std::to_string(offset + data->size()) +
                    "]";
        server->finish(*this, {{"content", text(body)}, {"structuredContent", structured}});
    }

  private:
    json m_args;
};

std::optional<unsigned> octalMode(const json& args)
{
    if (!args.contains("mode")) return std::nullopt;
    const std::string s = args["mode"].get<std::string>();
    if (s.empty() || s.size() > 4 || s.find_first_not_of("01234567") != std::string::npos)
        return std::nullopt;
    return static_cast<unsigned>(std::stoul(s, nullptr, 8));
}

class WriteFile : public Call {
  public:
    WriteFile(std::string path, std::string content, std::optional<unsigned> mode)
        : m_path(std::move(path)), m_content(std::move(content)), m_mode(mode)
    {
    }
    void start() override
    {
        json r = {{"op", "write"}, {"data_base64", base64(m_content)}, {"parents", true}};
        putBytes(r, "path", m_path);
        if (m_mode) r["mode"] = *m_mode;
        server->fileRequest(*this, r);
    }
    void onFileReply(std::uint64_t, const json& reply) override
    {
        if (!reply.value("ok", false))
            return server->finish(*this, failure(fileError(reply, m_path)));
        server->finish(*this, {{"content", text("wrote " + std::to_string(m_content.size()) +
                                                " bytes to " + m_path)}});
    }

  private:
    std::string m_path, m_content;
    std::optional<unsigned> m_mode;
};

class EditFile : public Call {
  public:
    explicit EditFile(json args) : m_args(std::move(args)) {}
    void start() override
    {
        server->fileRequest(*this, {{"op", "read"}, {"path", m_args["path"]}});
    }
    void onFileReply(std::uint64_t, const json& reply) override
    {
        const std::string path = m_args["path"].get<std::string>();
        if (!reply.value("ok", false))
            return server->finish(*this, failure(fileError(reply, path)));
        if (m_writing) return server->finish(*this, {{"content", text(m_summary)}});
        if (!reply.value("eof", true))
            return server->finish(*this, failure(path + " is too large to edit here; use "
                                                        "run_command with a tool such as sed"));
        auto data = fromBase64(reply.value("data_base64", std::string()));
        const std::string from = m_args["old_text"].get<std::string>();
        const std::string to = m_args["new_text"].get<std::string>();
        if (!data || from.empty())
            return server->finish(*this, failure("old_text must not be empty"));
        std::size_t count = 0;
        for (std::size_t at = data->find(from); at != std::string::npos;
             at = data->find(from, at + from.size()))
            ++count;
        const bool all = m_args.value("replace_all", false);
        if (count == 0)
            return server->finish(*this, failure("old_text does not occur in " + path +
                                                 " (it must match exactly, white space included)"));
        if (count > 1 && !all)
            return server->finish(*this, failure("old_text occurs " + std::to_string(count) +
                                                 " times in " + path +
                                                 ": give more context to make it unique, or set "
                                                 "replace_all"));
        std::string edited;
        std::size_t last = 0;
        for (std::size_t at = data->find(from); at != std::string::npos;
             at = data->find(from, at + from.size())) {
            edited.append(*data, last, at - last).append(to);
            last = at + from.size();
        }
        edited.append(*data, last, std::string::npos);
        m_writing = true;
        m_summary = "replaced " + std::to_string(count) + " occurrence(s) in " + path;
        json w = {{"op", "write"}, {"data_base64", base64(edited)}, {"path", m_args["path"]}};
        server->fileRequest(*this, w);
    }

  private:
    json m_args;
    bool m_writing = false;
    std::string m_summary;
};

class ListDirectory : public Call {
  public:
    explicit ListDirectory(json args) : m_args(std::move(args)) {}
    void start() override
    {
        server->fileRequest(*this, {{"op", "list"},
                                    {"path", m_args.value("path", std::string("."))},
                                    {"recursive", m_args.value("recursive", false)},
                                    {"max", m_args.value("max_entries", 500)}});
    }
    void onFileReply(std::uint64_t, const json& reply) override
    {
        const std::string path = m_args.value("path", std::string("."));
        if (!reply.value("ok", false))
            return server->finish(*this, failure(fileError(reply, path)));
        std::string lines;
        json entries = json::array();
        for (const auto& e : reply["entries"]) {
            const std::string name = getBytes(e, "path").value_or("?");
            const std::string type = e.value("type", "other");
            entries.push_back({{"path", name}, {"type", type}, {"size", e.value("size", 0)}});
            if (type == "directory")
                lines += "d " + name + "/\n";
            else if (type == "symlink")
                lines += "l " + name + " -> " + getBytes(e, "target").value_or("") + "\n";
            else
                lines += (type == "file" ? "f " : "o ") + name + " (" +
                         std::to_string(e.value("size", 0)) + " bytes)\n";
        }
        const bool truncated = reply.value("truncated", false);
        if (truncated) lines += "[… more entries: raise max_entries or list a subfolder]\n";
        if (entries.empty()) lines = "(empty)\n";
        server->finish(*this,
                       {{"content", text(lines)},
                        {"structuredContent", {{"entries", entries}, {"truncated", truncated}}}});
    }

  private:
    json m_args;
};

// find and grep inside the sandbox: the same programs the agent could run, through exec
// approval like them.
class SearchFiles : public Call {
  public:
    explicit SearchFiles(json args) : m_args(std::move(args)) {}
    void start() override
    {
        const std::string path = m_args.value("path", std::string("."));
        const int max = m_args.value("max_results", 200);
        std::vector<std::string> argv;
        if (m_args.contains("content")) {
            argv = {"grep", "-rnIE", "--max-count=20"};
            if (m_args.contains("glob"))
                argv.push_back("--include=" + m_args["glob"].get<std::string>());
            argv.insert(argv.end(), {"--", m_args["content"].get<std::string>(), path});
        } else {
            argv = {"find", path,    "-name",   m_args.value("glob", std::string("*")),
                    "-not", "-path", "*/.git/*"};
        }
        m_max = static_cast<std::size_t>(std::max(1, max));
        json request = {{"argv", argv}, {"timeout_ms", 60000}};
        server->startExec(*this, request);
    }
    void onExecOutput(std::uint64_t, std::uint64_t stream, std::string_view bytes) override
    {
        if (stream == proto::kExecStderr)
            m_err.add(bytes);
        else if (m_out.size() < (std::size_t{8} << 20)) // far more than max_results lines
            m_out.append(bytes);
    }
    void onExecEvent(std::uint64_t, const json& body) override
    {
        if (body.contains("approval")) server->progress(*this, approvalNote(body));
    }
    void onExecExit(std::uint64_t, const json& exit) override
    {
        if (refused(exit)) return server->finish(*this, failure(refusalText(exit)));
        const int code = exit["exit_code"].is_number() ? exit["exit_code"].get<int>() : -1;
        if (code > 1) return server->finish(*this, failure("search failed: " + m_err.shown()));
        json matches = json::array();
        std::string lines;
        bool truncated = false;
        std::size_t start = 0;
        while (start < m_out.size()) {
            std::size_t nl = m_out.find('\n', start);
            std::string line =
                m_out.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
            start = nl == std::string::npos ? m_out.size() : nl + 1;
            if (line.empty()) continue;
            if (matches.size() >= m_max) {
                truncated = true;
                break;
            }
            json match;
            if (m_args.contains("content")) {
                auto c1 = line.find(':'),
                     c2 = c1 == std::string::npos ? c1 : line.find(':', c1 + 1);
                if (c2 == std::string::npos) continue;
                match = {{"path", line.substr(0, c1)},
                         {"line", std::atoi(line.substr(c1 + 1, c2 - c1 - 1).c_str())},
                         {"text", line.substr(c2 + 1)}};
            } else {
                match = {{"path", line}};
            }
            matches.push_back(match);
            lines += line + "\n";
        }
        if (matches.empty()) lines = "no matches\n";
        if (truncated) lines += "[… more matches: narrow the search or raise max_results]\n";
        server->finish(*this,
                       {{"content", text(lines)},
                        {"structuredContent", {{"matches", matches}, {"truncated", truncated}}}});
    }

  private:
    json m_args;
    std::string m_out;
    Captured m_err;
    std::size_t m_max = 200;
};

// On the host: the session's layer against the real project (the review's own functions).
class GetChanges : public Call {
  public:
    explicit GetChanges(json args) : m_args(std::move(args)) {}
    void start() override
    {
        const SessionInfo& s = server->session();
        auto changes = listChanges(s.upperDir(), s.project);
        if (!changes) return server->finish(*this, failure(changes.error().describe()));
        auto rules = sessionRunLaterRules(s);
        if (rules) markRunLater(*changes, *rules, s.project, homeDirectory());
        std::vector<std::string> paths;
        for (const auto& p : m_args.value("paths", json::array()))
            paths.push_back(p.get<std::string>());
        auto selected = [&](const std::string& path) {
            if (paths.empty()) return true;
            for (const auto& p : paths)
                if (path == p || path.starts_with(p + "/")) return true;
            return false;
        };
        static const char* const kinds[] = {"added", "modified", "deleted"};
        json list = json::array();
        std::string lines;
        for (const Change& c : *changes) {
            if (!selected(c.path)) continue;
            json entry = {{"path", c.path}, {"kind", kinds[static_cast<int>(c.kind)]}};
            if (c.runLater) entry["run_later"] = c.runLater->reason;
            list.push_back(entry);
            lines += std::string(1, "AMD"[static_cast<int>(c.kind)]) + " " + c.path +
                     (c.runLater ? "   (runs later: the user must apply it on its own)" : "") +
                     "\n";
        }
        if (list.empty()) lines = "no changes against the project\n";
        json structured = {{"changes", list}};
        if (m_args.value("diff", true) && !list.empty()) {
            auto diff = unifiedDiff(s.upperDir(), s.project, paths, rules ? &*rules : nullptr,
                                    homeDirectory());
            std::string d = diff ? *diff : "cannot diff: " + diff.error().describe();
            if (d.size() > 4 * kMaxToolOutput)
                d = d.substr(0, 4 * kMaxToolOutput) +
                    "\n[… the diff goes on; ask for fewer paths]\n";
            structured["diff"] = d;
            lines += "\n" + d;
        }
        server->finish(*this, {{"content", text(lines)}, {"structuredContent", structured}});
    }

  private:
    json m_args;
};

// Argument checks against the schema's essentials: required keys and their JSON types.
std::string checkArguments(const json& schemaOf, const json& args)
{
    const json& props = schemaOf["properties"];
    for (const auto& key : schemaOf["required"])
        if (!args.contains(key.get<std::string>()))
            return "missing argument '" + key.get<std::string>() + "'";
    for (const auto& [key, value] : args.items()) {
        if (!props.contains(key)) return "unknown argument '" + key + "'";
        const std::string type = props[key].value("type", "");
        const bool ok = type == "string"    ? value.is_string()
                        : type == "integer" ? value.is_number_integer()
                        : type == "boolean" ? value.is_boolean()
                        : type == "array"   ? value.is_array()
                                            : true;
        if (!ok)
            return "argument '" + key + "' must be " + (type == "integer" ? "an " : "a ") + type;
        if (type == "integer") {
            const auto v = value.get<long long>();
            if (props[key].contains("minimum") && v < props[key]["minimum"].get<long long>())
                return "argument '" + key + "' is below " + props[key]["minimum"].dump();
            if (props[key].contains("maximum") && v > props[key]["maximum"].get<long long>())
                return "argument '" + key + "' is above " + props[key]["maximum"].dump();
        }
    }
    return {};
}

json integer(long long min, long long max, const char* description)
{
    return {{"type", "integer"}, {"minimum", min}, {"maximum", max}, {"description", description}};
}

json described(const char* type, const char* description)
{
    return {{"type", type}, {"description", description}};
}

} // namespace

const json& toolList()
{
    static const json tools = json::array({
        tool("run_command", "Run a command",
             "Runs a shell command (/bin/sh -c) inside the Sandbench sandbox over the project and "
             "waits for it to end. Returns its exit code, stdout and stderr (each cut at 64 KiB). "
             "Commands the session's policy asks about wait until the supervising user answers; "
             "denied ones fail with the rule. Network access goes through the session's proxy.",
             schema({{"command", described("string", "The shell command line")},
                     {"cwd", described("string", "Working folder (default: the project)")},
                     {"timeout_seconds", integer(1, 3600, "Kill it after this long (default 120)")},
                     {"stdin", described("string", "Text for its standard input")}},
                    {"command"}),
             false, true),
        tool("start_process", "Start a process",
             "Starts a long-running command (a dev server, a watcher) in the sandbox and returns "
             "at once with its process_id; read its output with read_process_output.",
             schema({{"command", described("string", "The shell command line")},
                     {"cwd", described("string", "Working folder (default: the project)")}},
                    {"command"}),
             false, true),
        tool("read_process_output", "Read process output",
             "New output of a started process since the last read, and whether it still runs.",
             schema({{"process_id", kString},
                     {"wait_ms", integer(0, 30000, "Wait this long for output or its end")}},
                    {"process_id"}),
             true, false),
        tool("write_process_input", "Write process input",
             "Writes text to a started process's standard input.",
             schema({{"process_id", kString},
                     {"input", kString},
                     {"close_stdin", described("boolean", "Close its input afterwards")}},
                    {"process_id", "input"}),
             false, false),
        tool("stop_process", "Stop a process",
             "Stops a started process (TERM, then KILL after 5 s) and returns how it ended.",
             schema({{"process_id", kString},
                     {"signal", {{"type", "string"}, {"enum", {"TERM", "KILL", "INT"}}}}},
                    {"process_id"}),
             false, true),
        tool("read_file", "Read a file",
             "Reads a file as the sandbox sees it (the project with the session's changes). Text "
             "comes back as text; a binary file's bytes as base64.",
             schema({{"path", described("string", "Absolute, or relative to the project")},
                     {"offset", integer(0, 1LL << 50, "Byte to start at")},
                     {"limit", integer(1, 8 << 20, "Bytes to read (at most 8 MiB)")}},
                    {"path"}),
             true, false),
        tool("write_file", "Write a file",
             "Creates or replaces a file (atomically), making its folders. The change stays in "
             "the session until the user applies it to the real project.",
             schema({{"path", described("string", "Absolute, or relative to the project")},
                     {"content", kString},
                     {"mode", described("string", "Octal mode such as \"0755\"")}},
                    {"path", "content"}),
             false, true),
        tool("edit_file", "Edit a file",
             "Replaces old_text with new_text in a file. old_text must match exactly and once "
             "(unless replace_all), white space included.",
             schema({{"path", kString},
                     {"old_text", kString},
                     {"new_text", kString},
                     {"replace_all", {{"type", "boolean"}}}},
                    {"path", "old_text", "new_text"}),
             false, true),
        tool("list_directory", "List a folder",
             "Lists a folder's entries (d folder, f file with its size, l link -> target).",
             schema({{"path", described("string", "Default: the project")},
                     {"recursive", {{"type", "boolean"}}},
                     {"max_entries", integer(1, 10000, "Default 500")}},
                    {}),
             true, false),
        tool("search_files", "Search files",
             "Finds files by name (glob, e.g. \"*.py\") and/or lines by content (an extended "
             "regular expression), below a folder.",
             schema({{"path", described("string", "Where to search (default: the project)")},
                     {"glob", kString},
                     {"content", kString},
                     {"max_results", integer(1, 10000, "Default 200")}},
                    {}),
             true, false),
        tool("get_changes", "Show the session's changes",
             "What this session changed against the real project (added, modified, deleted), "
             "with a unified diff. Applying them is the user's decision, not a tool's.",
             schema({{"diff", {{"type", "boolean"}}},
                     {"paths", {{"type", "array"}, {"items", kString}}}},
                    {}),
             true, false),
    });
    return tools;
}

std::unique_ptr<Call> makeCall(Server& server, const std::string& name, const json& args,
                               std::string& error)
{
    const json* spec = nullptr;
    for (const auto& t : toolList())
        if (t["name"] == name) spec = &t;
    if (!spec) {
        error = "no tool '" + name + "'";
        return nullptr;
    }
    if (error = checkArguments((*spec)["inputSchema"], args); !error.empty()) return nullptr;
    auto processArg = [&]() -> Process* {
        Process* p = server.process(args["process_id"].get<std::string>());
        if (!p) error = "no process '" + args["process_id"].get<std::string>() + "'";
        return p;
    };
    if (name == "run_command") return std::make_unique<RunCommand>(args);
    if (name == "start_process") return std::make_unique<StartProcess>(args);
    if (name == "read_process_output") {
        Process* p = processArg();
        return p ? std::make_unique<ReadProcessOutput>(p, args.value("wait_ms", 0)) : nullptr;
    }
    if (name == "write_process_input") {
        Process* p = processArg();
        return p ? std::make_unique<WriteProcessInput>(p, args) : nullptr;
    }
    if (name == "stop_process") {
        Process* p = processArg();
        const std::string sig = args.value("signal", std::string("TERM"));
        return p ? std::make_unique<StopProcess>(p, sig == "KILL"  ? SIGKILL
                                                    : sig == "INT" ? SIGINT
                                                                   : SIGTERM)
                 : nullptr;
    }
    if (name == "read_file") return std::make_unique<ReadFile>(args);
    if (name == "write_file") {
        auto mode = octalMode(args);
        if (args.contains("mode") && !mode) {
            error = "mode must be octal, such as \"0644\"";
            return nullptr;
        }
        return std::make_unique<WriteFile>(args["path"].get<std::string>(),
                                           args["content"].get<std::string>(), mode);
    }
    if (name == "edit_file") return std::make_unique<EditFile>(args);
    if (name == "list_directory") return std::make_unique<ListDirectory>(args);
    if (name == "search_files") return std::make_unique<SearchFiles>(args);
    if (name == "get_changes") return std::make_unique<GetChanges>(args);
    error = "no tool '" + name + "'";
    return nullptr;
}

} // namespace sb::mcp
