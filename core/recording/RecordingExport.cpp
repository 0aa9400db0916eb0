#include "recording/RecordingExport.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

using nlohmann::json;

namespace sb {
namespace {

std::string dumpLine(const json& j)
{
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

double seconds(std::int64_t ns)
{
    return static_cast<double>(ns) / 1e9;
}

Status writeAsciicast(RecordingStore& store, const SessionRecord& s, const ExportSink& sink)
{
    json header = {{"version", 2},
                   {"width", s.cols},
                   {"height", s.rows},
                   {"timestamp", s.startedNs / 1'000'000'000},
                   {"title", "sandbench session " + s.id},
                   {"env", {{"TERM", "xterm-256color"}}}};
    std::string command;
    for (const std::string& arg : s.command)
        command += (command.empty() ? "" : " ") + arg;
    header["command"] = command;
    if (s.endedNs > s.startedNs) header["duration"] = seconds(s.endedNs - s.startedNs);
    if (auto e = sink(dumpLine(header))) return e;
    // asciicast carries text: a UTF-8 character split across two chunks is joined first.
    std::string carry[2];
    Status failed;
    auto e = store.forEachEvent(s.id, 0, INT64_MAX, [&](const RecordedEvent& ev) {
        std::string line;
        if (isTerminalBytes(ev.kind)) {
            std::string& pending = carry[ev.kind == EventKind::Input ? 1 : 0];
            pending += ev.data;
            std::string_view whole = completeUtf8Prefix(pending);
            if (whole.empty()) return true;
            line = dumpLine(json::array(
                {seconds(ev.tNs), ev.kind == EventKind::Output ? "o" : "i", std::string(whole)}));
            pending.erase(0, whole.size());
        } else if (ev.kind == EventKind::Resize) {
            json j = json::parse(ev.data, nullptr, false);
            if (j.is_object() && j.contains("cols") && j.contains("rows"))
                line = dumpLine(
                    json::array({seconds(ev.tNs), "r", j["cols"].dump() + "x" + j["rows"].dump()}));
        }
        if (!line.empty()) failed = sink(line);
        return !failed;
    });
    if (e) return e;
    return failed;
}

Status writeJsonLines(RecordingStore& store, const SessionRecord& s, const ExportSink& sink)
{
    json head = {{"type", "session"},
                 {"id", s.id},
                 {"command", s.command},
                 {"workspace", s.workspace},
                 {"started_ns", s.startedNs},
                 {"state", recordStateName(s.state)},
                 {"rows", s.rows},
                 {"cols", s.cols}};
    head["policy"] = json::parse(s.policy, nullptr, false);
    if (head["policy"].is_discarded()) head["policy"] = nullptr;
    head["ended_ns"] = s.endedNs != 0 ? json(s.endedNs) : json(nullptr);
    head["exit_status"] = s.exitStatus ? json(*s.exitStatus) : json(nullptr);
    if (auto e = sink(dumpLine(head))) return e;
    Status failed;
    auto e = store.forEachEvent(s.id, 0, INT64_MAX, [&](const RecordedEvent& ev) {
        json j = {{"seq", ev.seq}, {"t_ns", ev.tNs}, {"type", eventKindName(ev.kind)}};
        if (isTerminalBytes(ev.kind)) {
            if (isValidUtf8(ev.data))
                j["text"] = ev.data;
            else
                j["base64"] = base64(ev.data);
        } else {
            json payload = json::parse(ev.data, nullptr, false);
            j["payload"] = payload.is_discarded() ? json(ev.data) : payload;
        }
        failed = sink(dumpLine(j));
        return !failed;
    });
    if (e) return e;
    return failed;
}

Status writeAll(int fd, std::string_view bytes, const std::string& what)
{
    while (!bytes.empty()) {
        ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return sysError("write " + what);
        bytes.remove_prefix(static_cast<size_t>(n));
    }
    return {};
}

} // namespace

Status exportSession(RecordingStore& store, const std::string& id, ExportFormat format,
                     const ExportSink& sink)
{
    auto s = store.session(id);
    if (!s) return s.error();
    return format == ExportFormat::Asciicast ? writeAsciicast(store, *s, sink)
                                             : writeJsonLines(store, *s, sink);
}

Status exportSessionToFile(RecordingStore& store, const std::string& id, ExportFormat format,
                           const std::filesystem::path& file)
{
    if (file.empty())
        return exportSession(store, id, format,
                             [](std::string_view b) { return writeAll(1, b, "standard output"); });
    std::filesystem::path tmp = file;
    tmp += ".tmp-" + std::to_string(::getpid());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return sysError("create " + tmp.string());
    // Buffer: events are small and many.
    std::string buffer;
    auto flush = [&]() -> Status {
        Status e = writeAll(fd, buffer, tmp.string());
        buffer.clear();
        return e;
    };
    Status e = exportSession(store, id, format, [&](std::string_view b) -> Status {
        buffer.append(b);
        return buffer.size() >= (1u << 20) ? flush() : Status{};
    });
    if (!e) e = flush();
    if (!e && (::fsync(fd) != 0)) e = sysError("sync " + tmp.string());
    if (::close(fd) != 0 && !e) e = sysError("close " + tmp.string());
    if (!e && ::rename(tmp.c_str(), file.c_str()) != 0)
        e = sysError("rename " + tmp.string() + " to " + file.string());
    if (e) ::unlink(tmp.c_str());
    return e;
}

} // namespace sb
