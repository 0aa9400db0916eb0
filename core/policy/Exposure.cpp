#include "policy/Exposure.h"

#include <algorithm>
#include <array>
#include <fnmatch.h>
#include <map>
#include <optional>

namespace fs = std::filesystem;

namespace sb {
namespace {

// Credentials, keys and browser profiles: what an agent must not read just because a policy
// exposed a parent folder. Keep docs/policy.md in step with this list.
constexpr std::array<std::string_view, 15> kSensitive = {
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gh",
    ".local/share/keyrings",
    ".password-store",
    ".netrc",
    ".docker/config.json",
    ".kube",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".thunderbird",
    ".pki",
};

// Host trees that the sandbox builds itself; exposing them would undo the isolation.
constexpr std::array<std::string_view, 3> kSystemTrees = {"/proc", "/sys", "/dev"};

bool hasGlob(std::string_view s)
{
    return s.find_first_of("*?[") != std::string_view::npos;
}

// `p` is `dir` or lies inside it (both lexically normal).
bool isWithin(const fs::path& p, const fs::path& dir)
{
    auto [d, pi] = std::mismatch(dir.begin(), dir.end(), p.begin(), p.end());
    return d == dir.end();
}

fs::path normal(const fs::path& p)
{
    fs::path n = p.lexically_normal();
    if (!n.has_filename() && n != n.root_path()) n = n.parent_path(); // "/a/b/" → "/a/b"
    return n;
}

bool pathExists(const fs::path& p)
{
    std::error_code ec;
    return fs::exists(p, ec);
}

// The real path behind `p`, or `p` when it cannot be resolved.
fs::path real(const fs::path& p)
{
    std::error_code ec;
    fs::path r = fs::canonical(p, ec);
    return ec ? p : r;
}

fs::path expandHome(const std::string& spelled, const fs::path& home)
{
    if (spelled == "~") return home;
    if (spelled.starts_with("~/")) return home / spelled.substr(2);
    return spelled;
}

std::string where(std::size_t index, const std::string& spelled)
{
    return "at /filesystem/expose/" + std::to_string(index) + " ('" + spelled + "'): ";
}

// Sorted matches of a last-component glob; leading dots must be matched explicitly, as in a shell.
std::vector<fs::path> expandGlob(const fs::path& pattern)
{
    std::vector<fs::path> out;
    std::error_code ec;
    const std::string leaf = pattern.filename().string();
    for (fs::directory_iterator it(pattern.parent_path(), ec), end; !ec && it != end;
         it.increment(ec)) {
        if (fnmatch(leaf.c_str(), it->path().filename().c_str(), FNM_PERIOD) == 0)
            out.push_back(it->path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool lexists(const fs::path& p)
{
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

// A folder with more entries than this is kept read-only whole rather than rebound entry by
// entry, and the start line says so.
constexpr std::size_t kMaxRebound = 256;

struct Sensitive {
    fs::path path; // home / relative entry, or one of Sandbench's own folders
    fs::path real;
    bool exists = false; // as itself: a symlink counts, wherever it points
    bool own = false;    // Sandbench's own: never exposed, even by name
};

// The secrets under `home` and Sandbench's own folders, each with its real path.
std::vector<Sensitive> sensitiveOf(const fs::path& home, const std::vector<fs::path>& own)
{
    std::vector<Sensitive> out;
    auto add = [&](const fs::path& p, bool isOwn) {
        const bool exists = lexists(p);
        out.push_back({p, exists ? real(p) : p, exists, isOwn});
    };
    for (std::string_view rel : kSensitive)
        add(home / rel, false);
    for (const fs::path& o : own)
        add(normal(o), true);
    return out;
}

const Sensitive* sensitiveHolding(const std::vector<Sensitive>& all, const fs::path& p,
                                  bool ownOnly = false)
{
    for (const Sensitive& s : all) {
        if (ownOnly && !s.own) continue;
        if (isWithin(p, s.path) || isWithin(p, s.real)) return &s;
    }
    return nullptr;
}

std::string shownPath(const fs::path& p, const fs::path& home)
{
    return isWithin(p, home) && p != home ? "~/" + p.lexically_relative(home).string() : p.string();
}

// Protections for one read-write mount: run-later paths at or inside it.
void protectMount(const ResolvedExposure& mount, const RunLaterRules& rules, const fs::path& home,
                  std::vector<fs::path>& readOnly, std::vector<fs::path>& sealed,
                  std::vector<std::string>& notes)
{
    std::vector<fs::path> candidates;
    for (const std::string& h : rules.homePatterns())
        candidates.push_back(home / h);
    // A repository exposed read-write is a project of its own: its hooks, configuration, editor
    // tasks… at its top (entries deeper inside it are not searched for).
    if (lexists(mount.path / ".git"))
        for (const std::string& p : rules.literalProjectPatterns())
            candidates.push_back(mount.path / p);
    for (const fs::path& x : candidates) {
        if (isWithin(mount.path, x)) { // the mount itself runs later, or lies inside such a path
            readOnly.push_back(mount.path);
            notes.push_back(shownPath(mount.path, home) + " (read-only: it runs later)");
            continue;
        }
        if (!isWithin(x, mount.path)) continue;
        if (lexists(x)) {
            readOnly.push_back(x);
            notes.push_back(shownPath(x, home) + " (read-only)");
            continue;
        }
        fs::path folder = x.parent_path();
        while (folder != mount.path && !lexists(folder))
            folder = folder.parent_path();
        std::error_code ec;
        if (!fs::is_directory(fs::symlink_status(folder, ec))) continue; // nothing can be made
        // git writes in its own folder all the time (index.lock, objects, refs): sealed, no
        // commit would work. What the list names in it can then be made; say so.
        if (folder.filename() == ".git") {
            notes.push_back(shownPath(folder, home) +
                            " (git writes there: " + x.lexically_relative(folder).string() +
                            " could be made; expose the repository read-only to keep it out)");
            continue;
        }
        sealed.push_back(folder);
        notes.push_back(shownPath(x, home) + " (cannot be created)");
    }
}

// The folders strictly between each mask and the deepest mount holding it, when that mount is
// read-write: ExposurePlan::pins. A folder that is a mount itself, or a link, needs none.
std::vector<fs::path> pinsFor(const std::vector<fs::path>& masks,
                              const std::vector<ResolvedExposure>& mounts)
{
    std::vector<fs::path> pins;
    for (const fs::path& mask : masks) {
        const ResolvedExposure* holder = nullptr;
        for (const ResolvedExposure& m : mounts) // parents first: the last match is the deepest
            if (isWithin(mask, m.path)) holder = &m;
        if (holder == nullptr || holder->mode != AccessMode::ReadWrite) continue;
        for (fs::path folder = mask.parent_path();
             folder != holder->path && isWithin(folder, holder->path);
             folder = folder.parent_path()) {
            std::error_code ec;
            if (!fs::is_directory(fs::symlink_status(folder, ec))) continue;
            if (std::none_of(mounts.begin(), mounts.end(),
                             [&](const ResolvedExposure& m) { return m.path == folder; }))
                pins.push_back(folder);
        }
    }
    std::sort(pins.begin(), pins.end()); // parents first
    pins.erase(std::unique(pins.begin(), pins.end()), pins.end());
    return pins;
}

} // namespace

std::span<const std::string_view> sensitiveHomePaths()
{
    return kSensitive;
}

Status checkExposeSpelling(std::string_view path)
{
    if (path.empty())
        return inputError("empty path (expected an absolute path or one starting with \"~/\")");
    if (path.find('\0') != std::string_view::npos)
        return inputError("the path contains a NUL character");
    if (path[0] != '/' && path != "~" && !path.starts_with("~/"))
        return inputError("'" + std::string(path) +
                          "' is relative (expected an absolute path or one starting with \"~/\")");
    const fs::path p(path);
    bool last = true;
    for (auto it = p.end(); it != p.begin();) {
        --it;
        if (*it == "..")
            return inputError("'..' is not allowed in a path (expected a path without '..')");
        if (!it->empty() && !last && hasGlob(it->native()))
            return inputError("a glob may only appear in the last component of '" +
                              std::string(path) + "'");
        if (!it->empty()) last = false;
    }
    if (path[0] == '/') {
        const fs::path n = normal(p);
        if (n == "/")
            return inputError("exposing '/' would undo the sandbox (expected a narrower path)");
        for (std::string_view tree : kSystemTrees) {
            if (isWithin(n, tree))
                return inputError(
                    "'" + n.string() + "' is under " + std::string(tree) +
                    ", which the sandbox provides itself (expected a path elsewhere)");
        }
    }
    return std::nullopt;
}

Result<std::vector<fs::path>> planProjectMasks(const fs::path& project, const fs::path& home,
                                               const std::vector<fs::path>& own)
{
    const fs::path projectDir = normal(project), realProject = real(projectDir);
    const fs::path homeDir = normal(home);
    std::vector<fs::path> masks;
    for (const Sensitive& s : sensitiveOf(homeDir, own)) {
        const fs::path& p = s.path;
        const bool exists = s.exists;
        const fs::path& r = s.real;
        // A project inside Sandbench's own folders is one Sandbench made for the session (the
        // E2B API's sandboxes): it shows that folder alone, none of its neighbours.
        for (const fs::path& secret : {p, r}) {
            if (s.own) break;
            if (isWithin(projectDir, secret) || isWithin(realProject, secret))
                return inputError("workspace " + projectDir.string() + " lies inside " +
                                  secret.string() +
                                  ", which Sandbench never shows a sandbox (expected a project "
                                  "folder outside " +
                                  shownPath(p, homeDir) + ")");
        }
        if (!exists) continue;
        if (isWithin(p, projectDir)) masks.push_back(p);
        // The secret's real folder inside the project, reached by a link from home.
        if (r != p && isWithin(r, realProject))
            masks.push_back(projectDir / r.lexically_relative(realProject));
    }
    std::sort(masks.begin(), masks.end());
    masks.erase(std::unique(masks.begin(), masks.end()), masks.end());
    return masks;
}

Result<ExposurePlan> planExposures(const FilesystemPolicy& policy, const fs::path& home,
                                   const RunLaterRules& runLater, const std::vector<fs::path>& own)
{
    if (!home.is_absolute())
        return inputError("the home directory '" + home.string() + "' is not absolute");
    // Nothing exposed: nothing to mount, and no secret revealed that needs a mask.
    if (policy.expose.empty()) return ExposurePlan{};
    const fs::path homeDir = normal(home);

    const std::vector<Sensitive> sensitive = sensitiveOf(homeDir, own);

    // Explicit names are planned first so that a glob match they also name defers to them.
    std::map<fs::path, ResolvedExposure> chosen;
    std::map<fs::path, bool> explicitly; // path → named explicitly (true) or matched by a glob
    auto add = [&](const fs::path& p, const ExposedPath& e, std::size_t i, bool byName) -> Status {
        if (auto it = chosen.find(p); it != chosen.end()) {
            if (!byName && explicitly[p]) return std::nullopt;
            return inputError(where(i, e.path) + "'" + p.string() + "' is also exposed by " +
                              "/filesystem/expose/" + std::to_string(it->second.entry) +
                              " (expected each path once)");
        }
        chosen[p] = ResolvedExposure{p, e.mode, i};
        explicitly[p] = byName;
        return std::nullopt;
    };

    for (int pass = 0; pass < 2; ++pass) {
        const bool byName = pass == 0;
        for (std::size_t i = 0; i < policy.expose.size(); ++i) {
            const ExposedPath& e = policy.expose[i];
            if (auto err = checkExposeSpelling(e.path))
                return inputError(where(i, e.path) + err->message);
            const fs::path p = normal(expandHome(e.path, homeDir));
            if (auto err = checkExposeSpelling(p.string())) // "~" may expand to "/"
                return inputError(where(i, e.path) + err->message);
            const bool glob = hasGlob(p.filename().native());
            if (glob == byName) continue;

            if (!glob) {
                if (!pathExists(p)) {
                    if (e.optional) continue;
                    return Error{ErrorCode::NotFound, 0,
                                 where(i, e.path) + "'" + p.string() +
                                     "' does not exist (expected an existing path, or "
                                     "\"optional\": true)"};
                }
                for (const fs::path& q : {p, real(p)})
                    if (auto mine = sensitiveHolding(sensitive, q, true))
                        return inputError(where(i, e.path) + "'" + q.string() +
                                          "' lies in Sandbench's own folder '" +
                                          mine->path.string() +
                                          "' (sessions, recordings, control sockets, keys), "
                                          "which no sandbox may see (expected a path outside it)");
                // A harmless-looking name must not smuggle a secret in through a symlink.
                auto holder = sensitiveHolding(sensitive, real(p));
                if (holder && !sensitiveHolding(sensitive, p))
                    return inputError(where(i, e.path) + "'" + p.string() + "' resolves to '" +
                                      real(p).string() + "', inside the sensitive '" +
                                      holder->path.string() +
                                      "' (expected the sensitive path named explicitly)");
                if (auto err = add(p, e, i, true)) return *err;
                continue;
            }

            std::size_t matched = 0;
            std::string protectedMatches; // a glob never exposes a secret
            for (const fs::path& m : expandGlob(p)) {
                if (sensitiveHolding(sensitive, m) || sensitiveHolding(sensitive, real(m))) {
                    protectedMatches += (protectedMatches.empty() ? "'" : ", '") + m.string() + "'";
                    continue;
                }
                ++matched;
                if (auto err = add(m, e, i, false)) return *err;
            }
            if (matched > 0 || e.optional) continue;
            if (!protectedMatches.empty())
                return inputError(where(i, e.path) + "'" + p.string() + "' matches only " +
                                  protectedMatches +
                                  ", which a pattern never exposes: it is sensitive (expected "
                                  "the sensitive path named explicitly)");
            return Error{ErrorCode::NotFound, 0,
                         where(i, e.path) + "'" + p.string() +
                             "' matches nothing (expected at least one match, or "
                             "\"optional\": true)"};
        }
    }

    ExposurePlan plan;
    for (auto& [path, mount] : chosen)
        plan.mounts.push_back(mount); // std::map order: parents before children

    // Hide each existing secret that a mount reveals and that nobody named.
    for (const Sensitive& s : sensitive) {
        if (!s.exists || chosen.count(s.path) != 0) continue;
        for (const ResolvedExposure& m : plan.mounts) {
            std::optional<fs::path> hidden;
            if (isWithin(s.path, m.path))
                hidden = s.path;
            else if (const fs::path r = real(m.path); s.real != r && isWithin(s.real, r))
                hidden = m.path / s.real.lexically_relative(r); // the secret seen through a link
            if (!hidden ||
                std::find(plan.masks.begin(), plan.masks.end(), *hidden) != plan.masks.end())
                continue;
            for (const ResolvedExposure& inner : plan.mounts) {
                if (isWithin(inner.path, *hidden))
                    return inputError(
                        where(inner.entry, policy.expose[inner.entry].path) + "'" +
                        inner.path.string() + "' lies inside '" + hidden->string() +
                        "', which is hidden because /filesystem/expose/" + std::to_string(m.entry) +
                        " exposes a parent (expected the sensitive path itself named explicitly)");
            }
            plan.masks.push_back(*hidden);
        }
    }
    std::sort(plan.masks.begin(), plan.masks.end());
    plan.pins = pinsFor(plan.masks, plan.mounts);

    std::vector<fs::path> readOnly, sealed;
    for (const ResolvedExposure& m : plan.mounts)
        if (m.mode == AccessMode::ReadWrite)
            protectMount(m, runLater, homeDir, readOnly, sealed, plan.protectedNotes);
    auto within = [](const fs::path& p, const std::vector<fs::path>& dirs) {
        return std::any_of(dirs.begin(), dirs.end(),
                           [&](const fs::path& d) { return isWithin(p, d); });
    };
    std::vector<Protection> steps;
    std::sort(readOnly.begin(), readOnly.end());
    readOnly.erase(std::unique(readOnly.begin(), readOnly.end()), readOnly.end());
    std::sort(sealed.begin(), sealed.end());
    sealed.erase(std::unique(sealed.begin(), sealed.end()), sealed.end());
    for (const fs::path& folder : sealed) {
        if (within(folder, readOnly)) continue; // read-only already, whole
        steps.push_back({folder, AccessMode::ReadOnly});
        std::vector<fs::path> entries;
        std::error_code ec;
        for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
            entries.push_back(it->path());
        if (ec || entries.size() > kMaxRebound) {
            plan.protectedNotes.push_back(shownPath(folder, homeDir) +
                                          " (read-only whole: too many entries to rebind)");
            continue;
        }
        for (const fs::path& e : entries)
            if (!within(e, readOnly)) steps.push_back({e, AccessMode::ReadWrite});
    }
    for (const fs::path& p : readOnly)
        steps.push_back({p, AccessMode::ReadOnly});
    // Parents first; at one depth, a folder's read-only bind before the entries rebound in it.
    std::stable_sort(steps.begin(), steps.end(), [](const Protection& a, const Protection& b) {
        return std::distance(a.path.begin(), a.path.end()) <
               std::distance(b.path.begin(), b.path.end());
    });
    steps.erase(std::unique(steps.begin(), steps.end(),
                            [](const Protection& a, const Protection& b) {
                                return a.path == b.path && a.mode == b.mode;
                            }),
                steps.end());
    plan.protections = std::move(steps);
    std::sort(plan.protectedNotes.begin(), plan.protectedNotes.end());
    plan.protectedNotes.erase(std::unique(plan.protectedNotes.begin(), plan.protectedNotes.end()),
                              plan.protectedNotes.end());
    return plan;
}

} // namespace sb
