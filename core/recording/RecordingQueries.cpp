// Reading recorded sessions: the list, one session, its summary and its event stream.
#include "base/ActivityKinds.h"
#include "recording/RecordingCodec.h"
#include "recording/RecordingStore.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

using nlohmann::json;

namespace sb {
namespace {

constexpr const char* kSessionColumns =
    "SELECT id, command, workspace, policy, started_ns, ended_ns, exit_status, state, rows, "
    "cols, events, output_bytes, stored_bytes, last_t_ns FROM sessions ";

SessionRecord readSession(const SqliteStatement& s)
{
    SessionRecord r;
    r.id = s.columnText(0);
    json command = json::parse(s.columnText(1), nullptr, false);
    if (command.is_array())
        for (const json& arg : command)
            if (arg.is_string()) r.command.push_back(arg.get<std::string>());
    r.workspace = s.columnText(2);
    r.policy = s.columnText(3);
    r.startedNs = s.columnInt(4);
    r.endedNs = s.columnIsNull(5) ? 0 : s.columnInt(5);
    if (!s.columnIsNull(6)) r.exitStatus = static_cast<int>(s.columnInt(6));
    r.state = recordStateFromName(s.columnText(7)).value_or(RecordState::Ended);
    r.rows = static_cast<unsigned>(s.columnInt(8));
    r.cols = static_cast<unsigned>(s.columnInt(9));
    r.events = static_cast<std::uint64_t>(s.columnInt(10));
    r.outputBytes = static_cast<std::uint64_t>(s.columnInt(11));
    r.storedBytes = static_cast<std::uint64_t>(s.columnInt(12));
    r.lastEventNs = s.columnInt(13);
    return r;
}

std::string commandLine(const json& argv)
{
    if (!argv.is_array()) return argv.is_string() ? argv.get<std::string>() : std::string();
    std::string out;
    for (const json& a : argv) {
        if (!a.is_string()) continue;
        std::string s = a.get<std::string>();
        if (!out.empty()) out += ' ';
        bool plain = !s.empty() && s.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
        out += plain ? s : "'" + s + "'";
    }
    return out;
}

std::string stringField(const json& j, const char* key)
{
    auto it = j.find(key);
    if (it == j.end()) return {};
    if (it->is_string()) return it->get<std::string>();
    return it->dump();
}

std::uint64_t countField(const json& j, const char* key)
{
    auto it = j.find(key);
    return it != j.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

// " by curl": the program that made a connection, when it was found.
std::string byProgram(const json& j)
{
    auto p = j.find("process");
    if (p == j.end() || !p->is_array() || p->empty() || !p->front().is_object()) return {};
    const std::string program = stringField(p->front(), "program");
    return program.empty() ? "" : " by " + std::filesystem::path(program).filename().string();
}

// Folds a live file event into path -> "added"/"modified"/"deleted" as it stands after it: a
// file made and removed again drops out, a rename is its old name deleted and its new one added.
// ("more" summaries name no paths: what they stand for is missing here.)
void netLiveChange(std::map<std::string, std::string>& files, const json& event)
{
    const std::string path = stringField(event, "path");
    const std::string change = stringField(event, "change");
    auto gone = [&files](const std::string& p) {
        auto it = files.find(p);
        if (it != files.end() && it->second == "added")
            files.erase(it);
        else
            files[p] = "deleted";
    };
    if (change == "renamed") {
        gone(stringField(event, "from"));
        files[path] = "added";
    } else if (change == "deleted") {
        gone(path);
    } else if (change == "added" || change == "modified") {
        auto it = files.find(path);
        if (it == files.end() || it->second != "added") files[path] = change;
    }
}

// Rows of (seq, t_ns, type, enc, data) as RecordedEvents, terminal bytes decoded.
Status visitEvents(SqliteStatement& stmt, const std::string& id,
                   const std::function<bool(const RecordedEvent&)>& visit)
{
    RecordedEvent event;
    while (true) {
        auto row = stmt.step("read events");
        if (!row) return row.error();
        if (!*row) return {};
        event.seq = stmt.columnInt(0);
        event.tNs = stmt.columnInt(1);
        event.kind = static_cast<EventKind>(stmt.columnInt(2));
        auto data = decodeBlob(stmt.columnBytes(4), static_cast<int>(stmt.columnInt(3)));
        if (!data)
            return Error{data.error().code, 0,
                         "session " + id + " event " + std::to_string(event.seq) + ": " +
                             data.error().message};
        event.data = std::move(data.value());
        if (!visit(event)) return {};
    }
}

} // namespace

Result<std::vector<SessionRecord>> RecordingStore::sessions(const SessionFilter& filter)
{
    auto stmt = m_db.prepare(std::string(kSessionColumns) +
                             "WHERE started_ns >= ?1 AND (?2 IS NULL OR state = ?2) "
                             "ORDER BY started_ns, sid");
    if (!stmt) return stmt.error();
    stmt->bind(1, filter.sinceNs.value_or(0));
    if (filter.state) stmt->bindText(2, recordStateName(*filter.state));
    std::vector<SessionRecord> out;
    while (true) {
        auto row = stmt->step("list sessions");
        if (!row) return row.error();
        if (!*row) return out;
        out.push_back(readSession(*stmt));
    }
}

Result<SessionRecord> RecordingStore::session(const std::string& id)
{
    auto stmt = m_db.prepare(std::string(kSessionColumns) + "WHERE id = ?1");
    if (!stmt) return stmt.error();
    stmt->bindText(1, id);
    auto row = stmt->step("read session");
    if (!row) return row.error();
    if (!*row)
        return Error{ErrorCode::NotFound, 0,
                     "no recorded session '" + id + "' in " + m_db.file().string()};
    return readSession(*stmt);
}

Status RecordingStore::forEachEvent(const std::string& id, std::int64_t fromNs, std::int64_t toNs,
                                    const std::function<bool(const RecordedEvent&)>& visit)
{
    auto s = sid(id);
    if (!s) return s.error();
    auto stmt = m_db.prepare("SELECT seq, t_ns, type, enc, data FROM events WHERE sid = ?1 AND "
                             "t_ns >= ?2 AND t_ns <= ?3 ORDER BY t_ns, seq");
    if (!stmt) return stmt.error();
    stmt->bind(1, *s).bind(2, fromNs).bind(3, toNs);
    return visitEvents(*stmt, id, visit);
}

Status
RecordingStore::forEachStructuredEvent(const std::string& id,
                                       const std::function<bool(const RecordedEvent&)>& visit)
{
    auto s = sid(id);
    if (!s) return s.error();
    auto stmt = m_db.prepare("SELECT seq, t_ns, type, enc, data FROM events WHERE sid = ?1 AND "
                             "type NOT IN (0, 1) ORDER BY t_ns, seq");
    if (!stmt) return stmt.error();
    stmt->bind(1, *s);
    return visitEvents(*stmt, id, visit);
}

Result<RecordedSessionSummary> RecordingStore::summary(const std::string& id)
{
    auto record = session(id);
    if (!record) return record.error();
    RecordedSessionSummary out;
    out.session = std::move(record.value());
    auto s = sid(id);
    if (!s) return s.error();
    // Only structured events: terminal bytes are most of the data and none of the summary.
    auto stmt = m_db.prepare("SELECT type, data FROM events WHERE sid = ?1 AND type NOT IN "
                             "(0, 1, 2) ORDER BY t_ns, seq");
    if (!stmt) return stmt.error();
    stmt->bind(1, *s);
    std::set<std::string> hosts;
    std::map<std::string, std::string> files; // path -> last kind, from the final summary
    std::map<std::string, std::string> live;  // the same from live file events
    bool haveFinal = false;
    // Execs an `ask` rule stopped wait for their approval's outcome: (id, command line).
    std::deque<std::pair<std::uint64_t, std::string>> asked;
    std::map<std::uint64_t, std::optional<std::string>> askedByRequest; // the command, if one
    std::map<std::string, RecordedSessionSummary::ModelTotals> models;
    auto tally = [&out](bool allow, bool exec, const std::string& line) {
        ++(allow ? out.allowed : out.denied);
        if (exec) (allow ? out.commands : out.deniedCommands).push_back(line);
    };
    while (true) {
        auto row = stmt->step("read events");
        if (!row) return row.error();
        if (!*row) break;
        json j = json::parse(stmt->columnText(1), nullptr, false);
        if (j.is_discarded() || !j.is_object()) continue;
        switch (static_cast<EventKind>(stmt->columnInt(0))) {
        case EventKind::NetworkRequest:
            if (j.value("type", "") != "lookup") { // a name looked up is no host contacted
                std::string by;                    // the program that connected, when it was found
                if (auto p = j.find("process"); p != j.end() && p->is_array() && !p->empty())
                    by = " by " +
                         std::filesystem::path(p->front().value("program", "")).filename().string();
                hosts.insert(stringField(j, "host") + ":" + stringField(j, "port") +
                             (by == " by " ? "" : by));
            }
            break;
        case EventKind::ExecDecision:
        case EventKind::NetworkDecision: {
            const bool exec = static_cast<EventKind>(stmt->columnInt(0)) == EventKind::ExecDecision;
            const std::string d = stringField(j, "decision");
            const std::string line =
                exec ? commandLine(j.contains("argv") ? j["argv"] : j["program"]) : "";
            if (d == "ask") {
                if (exec) asked.emplace_back(j.value("id", std::uint64_t{0}), line);
            } else {
                tally(d == "allow", exec, line);
            }
            if (j.value("would_ask", false)) ++out.wouldAsk;
            break;
        }
        case EventKind::ApprovalPrompt: {
            ++out.prompts;
            // A command's request names the command ("command_id"); in recordings from before
            // it did, requests follow the decisions that asked, in the same order.
            std::optional<std::string> command;
            if (stringField(j, "what").starts_with("command ") && !asked.empty()) {
                const std::uint64_t commandId = j.value("command_id", std::uint64_t{0});
                auto it = std::find_if(asked.begin(), asked.end(), [commandId](const auto& a) {
                    return commandId != 0 && a.first == commandId;
                });
                if (it == asked.end()) it = asked.begin();
                command = it->second;
                asked.erase(it);
            }
            askedByRequest[j.value("request_id", std::uint64_t{0})] = command;
            break;
        }
        case EventKind::ApprovalAnswer: {
            if (j.value("timed_out", false)) ++out.timeouts;
            auto request = askedByRequest.find(j.value("request_id", std::uint64_t{0}));
            const bool command = request != askedByRequest.end() && request->second.has_value();
            tally(stringField(j, "decision") == "allow", command, command ? *request->second : "");
            if (request != askedByRequest.end()) askedByRequest.erase(request);
            break;
        }
        case EventKind::WorkspaceChange:
            // Live events ("kind": "file") while it ran; the net result ("final") at its end.
            if (stringField(j, "kind") == activity::kFile) {
                netLiveChange(live, j);
            } else {
                haveFinal = true;
                files[stringField(j, "path")] = stringField(j, "kind");
            }
            break;
        case EventKind::LimitHit: {
            std::string hit = stringField(j, "limit");
            if (std::string action = stringField(j, "action"); !action.empty())
                hit += " (" + action + ")";
            if (std::find(out.limitsHit.begin(), out.limitsHit.end(), hit) == out.limitsHit.end())
                out.limitsHit.push_back(std::move(hit));
            break;
        }
        case EventKind::Dropped:
            out.droppedBytes += j.value("bytes", std::uint64_t{0});
            break;
        case EventKind::Lifecycle:
            if (stringField(j, "type") == "observe") out.observed = true;
            break;
        case EventKind::Refusal: {
            // "mount by mount -t tmpfs none /tmp (pid 7)": the process that made the call.
            std::string line = stringField(j, "syscall");
            if (auto p = j.find("process");
                p != j.end() && p->is_array() && !p->empty() && p->front().is_object()) {
                const json& process = p->front();
                line += " by " + commandLine(process.contains("argv") ? process["argv"]
                                                                      : process["program"]);
                if (auto pid = process.find("pid"); pid != process.end() && pid->is_number())
                    line += " (pid " + pid->dump() + ")";
            }
            out.refusals.push_back(std::move(line));
            ++out.denied;
            break;
        }
        case EventKind::ModelRequest: {
            const std::string model = stringField(j, "model");
            auto& m = models[model];
            m.model = model;
            ++m.requests;
            m.inputTokens += countField(j, "input_tokens");
            m.outputTokens += countField(j, "output_tokens");
            m.cacheReadTokens += countField(j, "cache_read_tokens");
            m.cacheWriteTokens += countField(j, "cache_write_tokens");
            break;
        }
        case EventKind::SecretLeak: {
            std::string line = stringField(j, "secret") + " to " + stringField(j, "host") + ":" +
                               stringField(j, "port");
            if (std::string where = stringField(j, "where"); !where.empty()) line += " in " + where;
            out.leaks.push_back(line + byProgram(j));
            break;
        }
        default:
            break;
        }
    }
    out.hosts.assign(hosts.begin(), hosts.end());
    for (auto& [name, totals] : models)
        out.models.push_back(std::move(totals));
    // A session that did not end (interrupted) has no final summary: the live events tell.
    if (!haveFinal && out.session.state != RecordState::Ended) files = std::move(live);
    for (const auto& [path, kind] : files) {
        char mark = kind == "added" ? 'A' : kind == "deleted" ? 'D' : 'M';
        out.changedFiles.push_back(std::string(1, mark) + " " + path);
    }
    return out;
}

} // namespace sb
