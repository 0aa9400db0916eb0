// The MCP tools over the session's files: read, write, edit, list, search, and its changes.
#include "base/Bytes.h"
#include "base/Paths.h"
#include "mcp/McpToolsInternal.h"
#include "workspace/Workspace.h"

namespace sb::mcp {

using json = nlohmann::json;

namespace {

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
            lines += std::string(1, "AMD"[static_cast<int>(c.kind)]) + " " + quotedPath(c.path) +
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

} // namespace

std::unique_ptr<Call> makeReadFile(const json& args)
{
    return std::make_unique<ReadFile>(args);
}

std::unique_ptr<Call> makeWriteFile(const json& args, std::string& error)
{
    auto mode = octalMode(args);
    if (args.contains("mode") && !mode) {
        error = "argument 'mode' of write_file must be an octal mode such as \"0644\", not " +
                args["mode"].dump();
        return nullptr;
    }
    return std::make_unique<WriteFile>(args["path"].get<std::string>(),
                                       args["content"].get<std::string>(), mode);
}

std::unique_ptr<Call> makeEditFile(const json& args)
{
    return std::make_unique<EditFile>(args);
}

std::unique_ptr<Call> makeListDirectory(const json& args)
{
    return std::make_unique<ListDirectory>(args);
}

std::unique_ptr<Call> makeSearchFiles(const json& args)
{
    return std::make_unique<SearchFiles>(args);
}

std::unique_ptr<Call> makeGetChanges(const json& args)
{
    return std::make_unique<GetChanges>(args);
}

} // namespace sb::mcp
