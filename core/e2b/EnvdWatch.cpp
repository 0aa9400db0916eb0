// filesystem.Filesystem/WatchDir: envd's events of one folder, from the session's own file watch
// (the supervisor's inotify watch of the workspace, docs/protocol.md "File events"), which the
// link receives once subscribed, and from the API's own rewrites of files (SessionLink::
// announceWrite). The watch covers the workspace only (the sandbox's home): other folders are
// refused by name. The session's events are coalesced per path in windows of 250 ms and tell
// of a file the sandbox made once; what envdEvents() makes of them is what envd's inotify
// watch gives for such a change (a new file with content: a create, then a write). With
// includeEntry (envd 0.6.3) an event of a path that is there when it is sent carries the
// path's entry, as Stat gives it.
#include "base/Bytes.h"
#include "e2b/E2bInternal.h"
#include "http/HttpServer.h"

#include <functional>
#include <optional>

namespace sb::e2b {

using json = nlohmann::json;

namespace {

constexpr const char* kStreamType = "application/connect+json";

std::string message(const json& event)
{
    return envelope(dumpJson(event));
}

// `path` (relative to the workspace) as a name within the watched folder `folder` (relative
// to the workspace, "" for itself), or nothing when outside it or, not recursive, deeper.
std::optional<std::string> nameWithin(const std::string& path, const std::string& folder,
                                      bool recursive)
{
    std::string name = path;
    if (!folder.empty()) {
        if (!path.starts_with(folder + "/")) return std::nullopt;
        name = path.substr(folder.size() + 1);
    }
    if (name.empty() || (!recursive && name.find('/') != std::string::npos)) return std::nullopt;
    return name;
}

// What Stat says of a path of the workspace now, when it is there.
using StatOf = std::function<std::optional<json>(const std::string& path)>;

// envd's events (inotify's, as its watch gives them) of one of the session's file events within
// the watched folder: a file added with content is a create and then a write, an empty one or a
// folder a create; a modified file a write, a file turned into a folder or a link a removal and
// a create; a rename the old name's rename and the new name's create; a removal a remove. A
// file the API rewrote ("written", see SessionLink::announceWrite) is a write. With
// includeEntry, an event of a path there when it is sent carries its entry.
std::string envdEvents(const json& event, const std::string& home, const std::string& folder,
                       bool recursive, bool includeEntry, const StatOf& statOf)
{
    const std::string change = event.value("change", std::string());
    std::string path = event.value("path", std::string());
    if (change == "written") {
        const std::string absolute = event.value("sandbox_path", std::string());
        if (!absolute.starts_with(home + "/")) return {};
        path = absolute.substr(home.size() + 1);
    }
    const auto name = nameWithin(path, folder, recursive);
    const auto from = nameWithin(event.value("from", std::string()), folder, recursive);
    if (!name && !(change == "renamed" && from)) return {};
    // Looked at once, and only when something needs it.
    std::optional<std::optional<json>> stat;
    auto now = [&]() -> const std::optional<json>& {
        if (!stat) stat = statOf(path);
        return *stat;
    };
    std::string out;
    auto emit = [&](const std::string& which, const char* type, bool there) {
        json filesystem = {{"name", which}, {"type", type}};
        if (includeEntry && there && now())
            filesystem["entry"] = entryInfo(*now(), home + "/" + path);
        out += message({{"filesystem", std::move(filesystem)}});
    };
    const bool isFile = event.value("type", std::string("file")) == "file";
    if (change == "added") {
        emit(*name, "EVENT_TYPE_CREATE", true);
        if (isFile && now() && now()->value("size", 0LL) > 0) emit(*name, "EVENT_TYPE_WRITE", true);
    } else if (change == "modified" || change == "written") {
        if (!isFile) emit(*name, "EVENT_TYPE_REMOVE", false);
        emit(*name, isFile ? "EVENT_TYPE_WRITE" : "EVENT_TYPE_CREATE", true);
    } else if (change == "deleted") {
        emit(*name, "EVENT_TYPE_REMOVE", false);
    } else if (change == "renamed") {
        if (from) emit(*from, "EVENT_TYPE_RENAME", false);
        if (name) emit(*name, "EVENT_TYPE_CREATE", true);
    }
    return out; // "more" (an overflowing window) names no files: nothing envd could say
}

} // namespace

void watchDir(http::Exchange& ex, SessionLink& link, const std::string& home, std::size_t maxBody)
{
    auto fail = [&](const RpcError& error) {
        if (ex.beginStream(200, kStreamType)) ex.writeChunk(endOfStream(&error));
    };
    auto body = http::readWholeBody(ex, maxBody);
    if (!body) return fail(rpcError(body.error()));
    auto request = streamRequest(*body);
    if (!request) return fail(rpcError(request.error()));
    if (!request->contains("path") || !(*request)["path"].is_string())
        return fail({"invalid_argument", "path (a path) is missing"});
    // allowNetworkMounts (envd 0.6.4) lifts envd's refusal to watch a folder on a network file
    // system, which this watch never makes: it is the session's own watch of its workspace and
    // sees every change the sandbox makes there, wherever the folder lies. So it is honoured
    // as it is, and a non-boolean refused like any field of the wrong type.
    for (const char* flag : {"allowNetworkMounts", "includeEntry"})
        if (request->contains(flag) && !(*request)[flag].is_boolean())
            return fail({"invalid_argument", std::string(flag) + " is true or false"});
    const bool includeEntry = request->value("includeEntry", false);
    const std::string path = absoluteIn(home, (*request)["path"].get<std::string>());
    std::string folder;
    if (path != home) {
        if (!path.starts_with(home + "/"))
            return fail({"invalid_argument",
                         "watching " + path + " is not supported by Sandbench's E2B API: only " +
                             home +
                             " and the folders in it are watched (the session's workspace)"});
        folder = path.substr(home.size() + 1);
    }
    auto stat = link.file({{"op", "stat"}, {"path", path}});
    if (!stat) return fail(rpcError(stat.error()));
    if (!stat->value("ok", false)) return fail({"not_found", "folder " + path + " not found"});
    if (stat->value("type", std::string()) != "directory")
        return fail({"invalid_argument", "path " + path + " is not a folder"});
    const bool recursive = request->value("recursive", false);

    const StatOf statOf = [&](const std::string& relative) -> std::optional<json> {
        auto reply = link.file({{"op", "stat"}, {"path", home + "/" + relative}});
        if (!reply || !reply->value("ok", false)) return std::nullopt; // gone already
        return *reply;
    };
    auto events = std::make_shared<EventQueue>();
    if (auto e = link.watchFiles(events)) return fail(rpcError(*e));
    const auto keepalive = keepaliveOf(ex);
    if (!ex.beginStream(200, kStreamType) || !ex.writeChunk(message({{"start", json::object()}})))
        return link.unwatchFiles(events);
    for (;;) {
        std::string out;
        for (const ProcessEvent& e : events->take(keepalive)) {
            if (e.kind == ProcessEvent::Kind::Exit) { // the session went: the stream drops
                ex.writeChunk(out);
                ex.abort();
                return;
            }
            out += envdEvents(e.body, home, folder, recursive, includeEntry, statOf);
        }
        if (out.empty()) out = message({{"keepalive", json::object()}});
        if (!ex.writeChunk(out)) return link.unwatchFiles(events);
    }
}

} // namespace sb::e2b
