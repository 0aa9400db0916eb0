// Files that run later, as the review and apply of a session see them: the list the session
// started with (saved in its folder as run-later.json) and the marks on its changes.
#include "base/AtomicFile.h"
#include "base/Session.h"
#include "workspace/Workspace.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fs = std::filesystem;

namespace sb {
namespace {

fs::path savedListOf(const fs::path& sessionDirectory)
{
    return sessionDirectory / "run-later.json";
}

nlohmann::json toJson(const RunLaterRules& rules)
{
    using Json = nlohmann::json;
    Json add = Json::array(), unprotect = Json::array(), project = Json::array();
    for (const auto& a : rules.policy().add)
        add.push_back({{"path", a.path}, {"reason", a.reason}});
    for (const auto& u : rules.policy().unprotect)
        unprotect.push_back({{"path", u.path}, {"because", u.because}});
    for (const auto& [path, reason] : rules.projectPaths())
        project.push_back({{"path", path}, {"reason", reason}});
    return {{"list_version", kRunLaterListVersion},
            {"add", std::move(add)},
            {"unprotect", std::move(unprotect)},
            {"project_paths", std::move(project)}};
}

Result<RunLaterRules> fromJson(const nlohmann::json& saved)
{
    RunLaterPolicy policy;
    std::vector<std::pair<std::string, std::string>> project;
    try {
        for (const auto& a : saved.at("add"))
            policy.add.push_back(
                {a.at("path").get<std::string>(), a.at("reason").get<std::string>()});
        // An entry a later list no longer has is protected by nothing to switch off.
        for (const auto& u : saved.at("unprotect"))
            if (isBuiltinRunLater(u.at("path").get<std::string>()))
                policy.unprotect.push_back(
                    {u.at("path").get<std::string>(), u.at("because").get<std::string>()});
        for (const auto& p : saved.at("project_paths"))
            project.emplace_back(p.at("path").get<std::string>(),
                                 p.at("reason").get<std::string>());
    } catch (const nlohmann::json::exception& e) {
        return inputError(std::string("the saved list of files that run later: ") + e.what());
    }
    auto rules = RunLaterRules::make(policy);
    if (!rules) return rules.error();
    for (auto& [path, reason] : project)
        rules->addProjectPath(std::move(path), std::move(reason));
    return rules;
}

} // namespace

Result<RunLaterRules> sessionRunLaterRules(const SessionInfo& session)
{
    return sessionRunLaterRules(session.directory());
}

Result<RunLaterRules> sessionRunLaterRules(const fs::path& session)
{
    std::ifstream in(savedListOf(session));
    if (!in) return RunLaterRules(); // a session from before the list was saved
    std::stringstream text;
    text << in.rdbuf();
    auto saved = nlohmann::json::parse(text.str(), nullptr, false);
    if (saved.is_discarded()) return inputError(savedListOf(session).string() + ": not valid JSON");
    auto rules = fromJson(saved);
    if (!rules) return inputError(savedListOf(session).string() + ": " + rules.error().message);
    return rules;
}

Status saveSessionRunLaterRules(const SessionInfo& session, const RunLaterRules& rules)
{
    // The built-in list is what a missing file means: nothing to write on a start's path.
    if (rules.isBuiltinOnly()) return {};
    AtomicWriteOptions options;
    options.durable = false; // made again from the policy should a crash lose it
    return writeFileAtomically(savedListOf(session.directory()), toJson(rules).dump(2) + "\n",
                               options);
}

void markRunLater(std::vector<Change>& changes, const RunLaterRules& rules, const fs::path& project,
                  const fs::path& home)
{
    for (Change& c : changes)
        if (c.kind != ChangeKind::Deleted)
            c.runLater = rules.match(c.path, c.type == EntryType::Directory, project, home);
}

} // namespace sb
