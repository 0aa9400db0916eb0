#include "workspace/FileEvents.h"

#include "base/ActivityKinds.h"

#include <algorithm>

namespace sb {
namespace {

std::string parentOf(const std::string& path)
{
    auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

bool inFolder(const std::string& path, const std::string& folder)
{
    return folder.empty() ||
           (path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
            path[folder.size()] == '/');
}

bool isContentChange(const std::optional<ChangeKind>& kind)
{
    return kind == ChangeKind::Added || kind == ChangeKind::Modified;
}

} // namespace

std::optional<ChangeKind> netChange(const PathState& s)
{
    if (!s.view && !s.real) return std::nullopt;
    if (!s.view) return ChangeKind::Deleted;
    if (!s.real) return ChangeKind::Added;
    if (!s.upperEntry) return std::nullopt; // the real entry shows through
    if (*s.view == EntryType::Directory && *s.real == EntryType::Directory)
        return std::nullopt; // a folder the overlay copied up to hold changes
    return ChangeKind::Modified;
}

FileDecision decideFileEvent(const PathState& state, std::optional<ChangeKind> known,
                             bool onlyIfChanged)
{
    std::optional<ChangeKind> net = netChange(state);
    if (onlyIfChanged && net == known) return {std::nullopt, known};
    if (!net) {
        // Made and removed again by the agent: reported deleted only if it was reported at all.
        if (isContentChange(known) && !state.view) return {ChangeKind::Deleted, std::nullopt};
        return {std::nullopt, std::nullopt};
    }
    switch (*net) {
    case ChangeKind::Added:
        return {known == ChangeKind::Added ? std::nullopt : net, net};
    case ChangeKind::Modified:
        return {net, net};
    case ChangeKind::Deleted:
        return {known == ChangeKind::Deleted ? std::nullopt : net, net};
    }
    return {std::nullopt, known};
}

const char* changeName(ChangeKind kind)
{
    switch (kind) {
    case ChangeKind::Added:
        return "added";
    case ChangeKind::Modified:
        return "modified";
    case ChangeKind::Deleted:
        return "deleted";
    }
    return "modified";
}

const char* entryTypeName(EntryType type)
{
    switch (type) {
    case EntryType::File:
        return "file";
    case EntryType::Directory:
        return "directory";
    case EntryType::Symlink:
        return "symlink";
    case EntryType::Other:
        return "other";
    }
    return "other";
}

std::string commonFolder(const std::vector<std::string>& paths)
{
    if (paths.empty()) return {};
    std::string folder = parentOf(paths.front());
    for (const std::string& path : paths)
        while (!inFolder(path, folder))
            folder = parentOf(folder);
    return folder;
}

void FileEventBatcher::note(const std::string& path, long long nowMs, bool onlyIfChanged)
{
    if (m_pending.empty()) m_windowStart = nowMs;
    auto [it, inserted] = m_pending.try_emplace(path);
    if (inserted) {
        it->second.order = m_pending.size();
        it->second.onlyIfChanged = onlyIfChanged;
    } else if (!onlyIfChanged) {
        it->second.onlyIfChanged = false;
    }
}

void FileEventBatcher::noteRename(const std::string& from, const std::string& to, long long nowMs)
{
    note(from, nowMs);
    note(to, nowMs);
    m_renames.emplace_back(from, to);
}

void FileEventBatcher::noteKnown(long long nowMs)
{
    for (const auto& [path, kind] : m_known)
        note(path, nowMs, true);
}

long long FileEventBatcher::dueMs() const
{
    return m_pending.empty() ? -1 : m_windowStart + m_window;
}

std::vector<nlohmann::json> FileEventBatcher::flush(const Lookup& lookup)
{
    struct Item {
        const std::string* path;
        const Pending* pending;
        PathState state;
        FileDecision decision;
        bool renamed = false; // reported as one side of a rename
        std::string from;     // set on the new name of a reported rename
    };
    std::vector<Item> items;
    items.reserve(m_pending.size());
    for (const auto& [path, pending] : m_pending)
        items.push_back({&path, &pending, {}, {}, false, {}});
    // Looked up in path order, so that a lookup can reuse what it opened for the siblings.
    std::sort(items.begin(), items.end(),
              [](const Item& a, const Item& b) { return *a.path < *b.path; });
    std::unordered_map<std::string, Item*> byPath;
    for (Item& item : items) {
        item.state = lookup(*item.path);
        auto known = m_known.find(*item.path);
        item.decision = decideFileEvent(
            item.state,
            known == m_known.end() ? std::nullopt : std::optional<ChangeKind>(known->second),
            item.pending->onlyIfChanged);
        byPath[*item.path] = &item;
    }

    // a → b → c within one window is one rename, a → c.
    std::vector<std::pair<std::string, std::string>> chains;
    for (const auto& rename : m_renames) {
        auto chain = std::find_if(chains.begin(), chains.end(),
                                  [&](const auto& c) { return c.second == rename.first; });
        if (chain != chains.end())
            chain->second = rename.second;
        else
            chains.push_back(rename);
    }
    for (const auto& [from, to] : chains) {
        Item* a = byPath[from];
        Item* b = byPath[to];
        if (from == to || a == nullptr || b == nullptr || a->renamed || b->renamed) continue;
        if (a->decision.report != ChangeKind::Deleted || !isContentChange(b->decision.report))
            continue;
        a->renamed = b->renamed = true;
        b->from = from;
        if (b->state.view == EntryType::Directory) {
            // What was reported inside the folder now lives under its new name.
            std::vector<std::pair<std::string, ChangeKind>> moved;
            for (auto it = m_known.begin(); it != m_known.end();) {
                if (inFolder(it->first, from)) {
                    moved.emplace_back(to + it->first.substr(from.size()), it->second);
                    it = m_known.erase(it);
                } else {
                    ++it;
                }
            }
            for (auto& [path, kind] : moved)
                m_known[path] = kind;
        }
    }

    for (const Item& item : items) {
        if (item.decision.known)
            m_known[*item.path] = *item.decision.known;
        else
            m_known.erase(*item.path);
    }

    std::sort(items.begin(), items.end(),
              [](const Item& a, const Item& b) { return a.pending->order < b.pending->order; });
    std::vector<nlohmann::json> events;
    std::vector<std::string> rest;
    std::size_t counts[4] = {}; // added, modified, deleted, renamed
    for (const Item& item : items) {
        if (item.renamed && item.from.empty()) continue; // the old name of a reported rename
        if (!item.decision.report && !item.renamed) continue;
        const ChangeKind change = *item.decision.report;
        std::optional<EntryType> type =
            change == ChangeKind::Deleted ? item.state.real : item.state.view;
        std::optional<std::string> runsLater;
        if (m_options.runLater && change != ChangeKind::Deleted)
            runsLater = m_options.runLater(*item.path, type == EntryType::Directory);
        if (events.size() >= m_options.maxEvents && !runsLater) {
            rest.push_back(*item.path);
            ++counts[item.renamed ? 3 : static_cast<int>(change)];
            continue;
        }
        nlohmann::json event = {{"kind", activity::kFile},
                                {"change", item.renamed ? "renamed" : changeName(change)},
                                {"path", *item.path}};
        if (item.renamed) event["from"] = item.from;
        if (type) event["type"] = entryTypeName(*type);
        if (runsLater) event["run_later"] = *runsLater;
        events.push_back(std::move(event));
    }
    if (!rest.empty()) {
        events.push_back({{"kind", activity::kFile},
                          {"change", "more"},
                          {"count", rest.size()},
                          {"path", commonFolder(rest)},
                          {"added", counts[0]},
                          {"modified", counts[1]},
                          {"deleted", counts[2]},
                          {"renamed", counts[3]}});
    }
    // A flood keeps overflowing: longer windows, fewer summaries; quiet again: back to short.
    m_window = rest.empty() ? m_options.windowMs : std::min(m_window * 2, m_options.maxWindowMs);
    m_pending.clear();
    m_renames.clear();
    m_windowStart = -1;
    return events;
}

} // namespace sb
