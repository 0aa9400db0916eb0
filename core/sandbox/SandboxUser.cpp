#include "sandbox/SandboxUser.h"

#include "base/AtomicFile.h"

#include <sstream>
#include <vector>

namespace sb {

namespace {

std::vector<std::string> fieldsOf(const std::string& line)
{
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (;;) {
        const std::size_t colon = line.find(':', start);
        fields.push_back(line.substr(start, colon - start));
        if (colon == std::string::npos) return fields;
        start = colon + 1;
    }
}

// Every line of `text` but those `drop` says, each ending in a newline.
template <typename Drop> std::string keptLines(std::string_view text, Drop drop)
{
    std::string out;
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);)
        if (!drop(fieldsOf(line))) out += line + "\n";
    return out;
}

} // namespace

std::string passwdWithUser(std::string_view passwd, std::string_view name, uid_t uid, gid_t gid,
                           const std::string& home)
{
    std::string shell = "/bin/sh";
    const std::string uidText = std::to_string(uid);
    std::string out = keptLines(passwd, [&](const std::vector<std::string>& f) {
        const bool drop = f[0] == name || (f.size() > 2 && f[2] == uidText);
        if (drop && f.size() > 6 && f[2] == uidText && !f[6].empty()) shell = f[6];
        return drop;
    });
    // The overflow user's nologin would keep `user` from logging in to a shell (su, ssh).
    if (shell.ends_with("nologin") || shell.ends_with("false")) shell = "/bin/sh";
    return out + std::string(name) + ":x:" + uidText + ":" + std::to_string(gid) + ":" +
           std::string(name) + ":" + home + ":" + shell + "\n";
}

std::string groupWithUser(std::string_view group, std::string_view name, gid_t gid)
{
    const std::string gidText = std::to_string(gid);
    return keptLines(group,
                     [&](const std::vector<std::string>& f) {
                         return f[0] == name || (f.size() > 2 && f[2] == gidText);
                     }) +
           std::string(name) + ":x:" + gidText + ":\n";
}

EtcFiles sandboxUserEtcFiles(const std::filesystem::path& systemRoot, std::string_view name,
                             uid_t uid, gid_t gid, const std::string& home)
{
    return {{"/etc/passwd",
             passwdWithUser(readWholeFile(systemRoot / "etc/passwd"), name, uid, gid, home)},
            {"/etc/group", groupWithUser(readWholeFile(systemRoot / "etc/group"), name, gid)}};
}

} // namespace sb
