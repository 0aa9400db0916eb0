// filesystem.Filesystem/WatchDir: envd's events of one folder, from the session's own file watch
// (the supervisor's inotify watch of the workspace, docs/protocol.md "File events"), which the
// link receives once subscribed. The watch covers the workspace only (the sandbox's home):
// other folders are refused by name. Its events are coalesced per path in windows of 250 ms:
// an added file is one create, a written one a write per window, a rename a rename of the old
// name and a create of the new one (as envd's inotify gives them). With includeEntry (envd
// 0.6.3) an event of a path that is there when it is sent carries the path's entry, as Stat
// gives it.
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

// The entry of a path of the workspace now, when it is there (includeEntry).
using EntryOf = std::function<std::optional<json>(const std::string& path)>;

// envd's events of one of the session's file events, within the watched folder.
std::string envdEvents(const json& event, const std::string& folder, bool recursive,
                       const EntryOf& entryOf)
{
    const std::string change = event.value("change", std::string());
    std::string out;
    auto add = [&](const std::string& path, const char* type) {
        auto name = nameWithin(path, folder, recursive);
        if (!name) return;
        json filesystem = {{"name", *name}, {"type", type}};
        if (entryOf && std::string_view(type) != "EVENT_TYPE_REMOVE" &&
            std::string_view(type) != "EVENT_TYPE_RENAME")
            if (auto entry = entryOf(path)) filesystem["entry"] = std::move(*entry);
        out += message({{"filesystem", std::move(filesystem)}});
    };
    const std::string path = event.value("path", std::string());
    if (change == "added") add(path, "EVENT_TYPE_CREATE");
    if (change == "modified") add(path, "EVENT_TYPE_WRITE");
    if (change == "deleted") add(path, "EVENT_TYPE_REMOVE");
    if (change == "renamed") {
        add(event.value("from", std::string()), "EVENT_TYPE_RENAME");
        add(path, "EVENT_TYPE_CREATE");
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

    EntryOf entryOf;
    if (includeEntry)
        entryOf = [&](const std::string& relative) -> std::optional<json> {
            const std::string absolute = home + "/" + relative;
            auto reply = link.file({{"op", "stat"}, {"path", absolute}});
            if (!reply || !reply->value("ok", false)) return std::nullopt; // gone already
            return entryInfo(*reply, absolute);
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
            out += envdEvents(e.body, folder, recursive, entryOf);
        }
        if (out.empty()) out = message({{"keepalive", json::object()}});
        if (!ex.writeChunk(out)) return link.unwatchFiles(events);
    }
}

} // namespace sb::e2b
