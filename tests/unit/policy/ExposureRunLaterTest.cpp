// Files that run later inside read-write exposures, and secrets inside the project: what the
// sandbox's mounts leave writable, worked out from the plan as the mounts apply it.
#include "TestSupport.h"
#include "policy/Exposure.h"

#include <algorithm>

namespace fs = std::filesystem;
using sb::AccessMode;

namespace {

// The mode the sandbox sees at `p` after the plan's mounts and protections, in their order:
// the last bind at `p` or its nearest bound ancestor decides. Nothing bound: not exposed.
std::optional<AccessMode> effectiveMode(const sb::ExposurePlan& plan, const fs::path& p)
{
    std::optional<AccessMode> mode;
    std::size_t depth = 0;
    auto consider = [&](const fs::path& at, AccessMode m) {
        auto [a, b] = std::mismatch(at.begin(), at.end(), p.begin(), p.end());
        if (a != at.end()) return;
        const auto d = static_cast<std::size_t>(std::distance(at.begin(), at.end()));
        if (d >= depth) depth = d, mode = m;
    };
    for (const auto& m : plan.mounts)
        consider(m.path, m.mode);
    for (const auto& s : plan.protections)
        consider(s.path, s.mode);
    return mode;
}

// Can the agent create or change `p`? Existing: its own mode. Absent: its nearest existing
// folder's.
bool writable(const sb::ExposurePlan& plan, fs::path p)
{
    std::error_code ec;
    while (!fs::exists(fs::symlink_status(p, ec)))
        p = p.parent_path();
    return effectiveMode(plan, p) == AccessMode::ReadWrite;
}

sb::FilesystemPolicy expose(std::vector<sb::ExposedPath> entries)
{
    sb::FilesystemPolicy f;
    f.expose = std::move(entries);
    return f;
}

} // namespace

TEST(ExposureRunLater, ExistingFilesAreReadOnlyAndAbsentOnesCannotBeMade)
{
    sbtest::TempDir home;
    sbtest::writeFile(home / ".claude/settings.json", "{}");
    sbtest::writeFile(home / ".claude/.credentials.json", "{}");
    fs::create_directories(home / ".claude/projects/p");
    auto plan = sb::planExposures(expose({{"~/.claude", AccessMode::ReadWrite, false}}),
                                  home.path(), sb::RunLaterRules());
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_FALSE(writable(*plan, home / ".claude/settings.json"));
    EXPECT_FALSE(writable(*plan, home / ".claude/hooks/x.sh")); // absent: ~/.claude sealed
    EXPECT_FALSE(writable(*plan, home / ".claude/commands/x.md"));
    EXPECT_TRUE(writable(*plan, home / ".claude/.credentials.json"));
    EXPECT_TRUE(writable(*plan, home / ".claude/projects/p/new.jsonl"));
    auto noted = [&](const std::string& s) {
        return std::find(plan->protectedNotes.begin(), plan->protectedNotes.end(), s) !=
               plan->protectedNotes.end();
    };
    EXPECT_TRUE(noted("~/.claude/settings.json (read-only)"));
    EXPECT_TRUE(noted("~/.claude/hooks (cannot be created)"));
}

TEST(ExposureRunLater, AnExposureThatRunsLaterIsReadOnly)
{
    sbtest::TempDir home;
    sbtest::writeFile(home / ".bashrc", "x");
    auto plan = sb::planExposures(expose({{"~/.bashrc", AccessMode::ReadWrite, false}}),
                                  home.path(), sb::RunLaterRules());
    ASSERT_TRUE(plan);
    EXPECT_FALSE(writable(*plan, home / ".bashrc"));
}

TEST(ExposureRunLater, ARepositoryExposedReadWriteKeepsItsHooks)
{
    sbtest::TempDir home;
    sbtest::writeFile(home / "lib/.git/config", "[core]\n");
    sbtest::writeFile(home / "lib/.git/hooks/pre-commit.sample", "");
    fs::create_directories(home / "lib/.git/objects");
    sbtest::writeFile(home / "lib/src/a.c", "");
    auto plan = sb::planExposures(expose({{"~/lib", AccessMode::ReadWrite, false}}), home.path(),
                                  sb::RunLaterRules());
    ASSERT_TRUE(plan);
    EXPECT_FALSE(writable(*plan, home / "lib/.git/config"));
    EXPECT_FALSE(writable(*plan, home / "lib/.git/hooks/pre-commit"));
    EXPECT_FALSE(writable(*plan, home / "lib/.envrc"));
    EXPECT_TRUE(writable(*plan, home / "lib/src/a.c"));
    // git itself writes in .git (index.lock, objects, refs): that folder is never sealed, so
    // what the list names in it that does not exist cannot be kept from being made, and the
    // start line says so.
    EXPECT_TRUE(writable(*plan, home / "lib/.git/objects/ab"));
    EXPECT_TRUE(writable(*plan, home / "lib/.git/index.lock"));
    EXPECT_TRUE(std::any_of(
        plan->protectedNotes.begin(), plan->protectedNotes.end(),
        [](const std::string& n) { return n.find("git writes there") != std::string::npos; }));
}

TEST(ExposureRunLater, ShippedPresetsExposeNothingThatRunsLaterWritable)
{
    // A home holding every home entry of the list, and one holding none of them.
    for (bool populated : {true, false}) {
        sbtest::TempDir home;
        fs::create_directories(home / ".claude");
        fs::create_directories(home / ".codex");
        sbtest::writeFile(home / ".codex/auth.json", "{}");
        sbtest::writeFile(home / ".aider.tags.cache.v3/x", "");
        sb::RunLaterRules rules;
        if (populated)
            for (const std::string& p : rules.homePatterns())
                if (p.find_first_of("*?[") == std::string::npos && !fs::exists(home / p))
                    sbtest::writeFile(home / p, "x");
        for (const std::string& preset : sb::presetNames()) {
            auto policy = sb::loadPreset(preset);
            ASSERT_TRUE(policy) << preset;
            auto plan = sb::planExposures(policy->filesystem, home.path(), rules);
            ASSERT_TRUE(plan) << preset << ": " << plan.error().message;
            for (const std::string& p : rules.homePatterns())
                EXPECT_FALSE(writable(*plan, home / p))
                    << preset << " leaves ~/" << p << " writable"
                    << (populated ? " (present)" : " (absent)");
        }
    }
}

TEST(ProjectMasks, SecretsInsideTheProjectAreMasked)
{
    sbtest::TempDir home;
    sbtest::writeFile(home / ".ssh/id_ed25519", "key");
    sbtest::writeFile(home / ".config/gh/hosts.yml", "token");
    auto asHome = sb::planProjectMasks(home.path(), home.path());
    ASSERT_TRUE(asHome) << asHome.error().message;
    EXPECT_EQ(*asHome, (std::vector<fs::path>{home / ".config/gh", home / ".ssh"}));
    auto config = sb::planProjectMasks(home / ".config", home.path());
    ASSERT_TRUE(config);
    EXPECT_EQ(*config, (std::vector<fs::path>{home / ".config/gh"}));
    auto elsewhere = sb::planProjectMasks(home / "work", home.path());
    ASSERT_TRUE(elsewhere);
    EXPECT_TRUE(elsewhere->empty());
}

TEST(ProjectMasks, AProjectInsideASecretIsRefused)
{
    sbtest::TempDir home;
    sbtest::writeFile(home / ".ssh/id_ed25519", "key");
    auto refused = sb::planProjectMasks(home / ".ssh", home.path());
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("lies inside " + (home / ".ssh").string()),
              std::string::npos)
        << refused.error().message;
    // Through a link from home to a folder that is the project.
    sbtest::writeFile(home / "dotfiles/aws/credentials", "secret");
    fs::create_symlink(home / "dotfiles/aws", home / ".aws");
    auto linked = sb::planProjectMasks(home / "dotfiles", home.path());
    ASSERT_TRUE(linked) << linked.error().message;
    EXPECT_EQ(*linked, (std::vector<fs::path>{home / "dotfiles/aws"}));
}
