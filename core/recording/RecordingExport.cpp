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

size_t utf8Length(unsigned char lead)
{
    if (lead < 0x80) return 1;
    if ((lead & 0xe0) == 0xc0) return 2;
    if ((lead & 0xf0) == 0xe0) return 3;
    if ((lead & 0xf8) == 0xf0) return 4;
    return 0;
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

std::string_view completeUtf8Prefix(std::string_view bytes)
{
    // Look back at most 3 bytes for the lead byte of an unfinished character.
    size_t n = bytes.size();
    for (size_t back = 1; back <= 3 && back <= n; ++back) {
        auto c = static_cast<unsigned char>(bytes[n - back]);
        if ((c & 0xc0) == 0x80) continue; // continuation byte: keep looking for its lead
        size_t need = utf8Length(c);
        if (need > back) return bytes.substr(0, n - back);
        break;
    }
    return bytes;
}

bool isValidUtf8(std::string_view bytes)
{
    for (size_t i = 0; i < bytes.size();) {
        auto c = static_cast<unsigned char>(bytes[i]);
        size_t len = utf8Length(c);
        if (len == 0 || i + len > bytes.size()) return false;
        for (size_t k = 1; k < len; ++k)
            if ((static_cast<unsigned char>(bytes[i + k]) & 0xc0) != 0x80) return false;
        i += len;
    }
    return true;
}

std::string base64(std::string_view bytes)
{
    static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16 |
                     static_cast<unsigned char>(bytes[i + 1]) << 8 |
                     static_cast<unsigned char>(bytes[i + 2]);
        for (int k = 18; k >= 0; k -= 6)
            out.push_back(table[(v >> k) & 63]);
    }
    if (i < bytes.size()) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out.push_back(table[(v >> 18) & 63]);
        out.push_back(table[(v >> 12) & 63]);
        out.push_back(i + 1 < bytes.size() ? table[(v >> 6) & 63] : '=');
        out.push_back('=');
    }
    return out;
}

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
