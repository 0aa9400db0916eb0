#include "policy/Exposure.h"

#include "TestSupport.h"

#include <algorithm>

namespace fs = std::filesystem;

namespace {

// A fake home with dotfiles, secrets among them.
class FakeHome {
  public:
    FakeHome()
    {
        for (const char* dir :
             {".ssh", ".aws", ".claude", ".config/gh", ".config/editor", "work/src"})
            fs::create_directories(m_dir / dir);
        for (const char* file : {".ssh/id_ed25519", ".netrc", ".bashrc", ".claude.json"})
            sbtest::writeFile(m_dir / file, "x");
    }
    const fs::path& path() const { return m_dir.path(); }
    fs::path operator/(const std::string& rel) const { return m_dir / rel; }

  private:
    sbtest::TempDir m_dir;
};

sb::FilesystemPolicy expose(std::vector<sb::ExposedPath> entries)
{
    sb::FilesystemPolicy f;
    f.expose = std::move(entries);
    return f;
}

std::vector<fs::path> mountPaths(const sb::ExposurePlan& plan)
{
    std::vector<fs::path> out;
    for (const auto& m : plan.mounts)
        out.push_back(m.path);
    return out;
}

std::string refusal(const sb::FilesystemPolicy& policy, const fs::path& home)
{
    auto plan = sb::planExposures(policy, home);
    return plan ? "(accepted)" : plan.error().message;
}

} // namespace

TEST(Exposure, ExpandsHomeAndNormalises)
{
    FakeHome home;
    auto plan = sb::planExposures(
        expose({{"~/work/./src/", sb::AccessMode::ReadWrite, false}, {"~/.claude.json"}}),
        home.path());
    ASSERT_TRUE(plan) << plan.error().message;
    ASSERT_EQ(plan->mounts.size(), 2u);
    EXPECT_EQ(plan->mounts[0].path, home / ".claude.json");
    EXPECT_EQ(plan->mounts[0].mode, sb::AccessMode::ReadOnly);
    EXPECT_EQ(plan->mounts[0].entry, 1u);
    EXPECT_EQ(plan->mounts[1].path, home / "work/src");
    EXPECT_EQ(plan->mounts[1].mode, sb::AccessMode::ReadWrite);
    EXPECT_TRUE(plan->masks.empty());
}

TEST(Exposure, GlobNeverYieldsSecrets)
{
    FakeHome home;
    auto plan = sb::planExposures(expose({{"~/.*"}}), home.path());
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(mountPaths(*plan), (std::vector<fs::path>{home / ".bashrc", home / ".claude",
                                                        home / ".claude.json", home / ".config"}));
    // ~/.config was matched, so the GitHub CLI's token inside it is hidden.
    EXPECT_EQ(plan->masks, (std::vector<fs::path>{home / ".config/gh"}));
}

TEST(Exposure, GlobFollowsShellDotRules)
{
    FakeHome home;
    auto plan = sb::planExposures(expose({{"~/*"}}), home.path());
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(mountPaths(*plan), (std::vector<fs::path>{home / "work"}));
}

TEST(Exposure, ExposingHomeMasksTheSecretsThatExist)
{
    FakeHome home;
    auto plan = sb::planExposures(expose({{"~", sb::AccessMode::ReadWrite, false}}), home.path());
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(mountPaths(*plan), (std::vector<fs::path>{home.path()}));
    EXPECT_EQ(plan->masks, (std::vector<fs::path>{home / ".aws", home / ".config/gh",
                                                  home / ".netrc", home / ".ssh"}));
}

TEST(Exposure, ASecretNamedExplicitlyIsExposedNotMasked)
{
    FakeHome home;
    auto plan = sb::planExposures(expose({{"~"}, {"~/.ssh"}}), home.path());
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(mountPaths(*plan), (std::vector<fs::path>{home.path(), home / ".ssh"}));
    EXPECT_EQ(std::count(plan->masks.begin(), plan->masks.end(), home / ".ssh"), 0);
    EXPECT_EQ(std::count(plan->masks.begin(), plan->masks.end(), home / ".aws"), 1);
}

TEST(Exposure, PathInsideAHiddenSecretIsRefused)
{
    FakeHome home;
    EXPECT_EQ(refusal(expose({{"~"}, {"~/.ssh/id_ed25519"}}), home.path()),
              "at /filesystem/expose/1 ('~/.ssh/id_ed25519'): '" +
                  (home / ".ssh/id_ed25519").string() + "' lies inside '" +
                  (home / ".ssh").string() +
                  "', which is hidden because /filesystem/expose/0 exposes a parent (expected the "
                  "sensitive path itself named explicitly)");
}

TEST(Exposure, SymlinkToASecretIsRefusedOrSkipped)
{
    FakeHome home;
    fs::create_directory_symlink(home / ".ssh", home / "innocent");
    EXPECT_EQ(refusal(expose({{"~/innocent"}}), home.path()),
              "at /filesystem/expose/0 ('~/innocent'): '" + (home / "innocent").string() +
                  "' resolves to '" + (home / ".ssh").string() + "', inside the sensitive '" +
                  (home / ".ssh").string() + "' (expected the sensitive path named explicitly)");
    EXPECT_EQ(refusal(expose({{"~/i*"}}), home.path()),
              "at /filesystem/expose/0 ('~/i*'): '" + (home / "i*").string() + "' matches only '" +
                  (home / "innocent").string() +
                  "', which a pattern never exposes: it is sensitive (expected the sensitive "
                  "path named explicitly)");
}

// Issue 26, item 11: a pattern that matches only protected paths names them, rather than
// saying that it matches nothing.
TEST(Exposure, APatternMatchingOnlySecretsNamesThem)
{
    FakeHome home;
    EXPECT_EQ(refusal(expose({{"~/.ss*"}}), home.path()),
              "at /filesystem/expose/0 ('~/.ss*'): '" + (home / ".ss*").string() +
                  "' matches only '" + (home / ".ssh").string() +
                  "', which a pattern never exposes: it is sensitive (expected the sensitive "
                  "path named explicitly)");
    auto optional =
        sb::planExposures(expose({{"~/.ss*", sb::AccessMode::ReadOnly, true}}), home.path());
    ASSERT_TRUE(optional) << optional.error().message;
    EXPECT_TRUE(optional->mounts.empty()) << "optional: skipped, and still not exposed";
}

TEST(Exposure, OptionalMissingIsSkippedRequiredMissingIsAnError)
{
    FakeHome home;
    auto plan = sb::planExposures(expose({{"~/.codex", sb::AccessMode::ReadWrite, true},
                                          {"~/.nothing*", sb::AccessMode::ReadOnly, true},
                                          {"~/.claude"}}),
                                  home.path());
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(mountPaths(*plan), (std::vector<fs::path>{home / ".claude"}));

    auto missing = sb::planExposures(expose({{"~/.claude"}, {"~/.codex"}}), home.path());
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, sb::ErrorCode::NotFound);
    EXPECT_EQ(missing.error().message,
              "at /filesystem/expose/1 ('~/.codex'): '" + (home / ".codex").string() +
                  "' does not exist (expected an existing path, or \"optional\": true)");
    EXPECT_EQ(refusal(expose({{"~/.nothing*"}}), home.path()),
              "at /filesystem/expose/0 ('~/.nothing*'): '" + (home / ".nothing*").string() +
                  "' matches nothing (expected at least one match, or \"optional\": true)");
}

TEST(Exposure, DotDotRelativeAndSystemPathsAreRefused)
{
    FakeHome home;
    EXPECT_EQ(refusal(expose({{"~/work/../.ssh"}}), home.path()),
              "at /filesystem/expose/0 ('~/work/../.ssh'): '..' is not allowed in a path (expected "
              "a path without '..')");
    EXPECT_EQ(refusal(expose({{"work"}}), home.path()),
              "at /filesystem/expose/0 ('work'): 'work' is relative (expected an absolute path or "
              "one starting with \"~/\")");
    EXPECT_EQ(refusal(expose({{"~root/x"}}), home.path()),
              "at /filesystem/expose/0 ('~root/x'): '~root/x' is relative (expected an absolute "
              "path or one starting with \"~/\")");
    EXPECT_EQ(refusal(expose({{"//"}}), home.path()),
              "at /filesystem/expose/0 ('//'): exposing '/' would undo the sandbox (expected a "
              "narrower path)");
    EXPECT_EQ(refusal(expose({{"/dev"}}), home.path()),
              "at /filesystem/expose/0 ('/dev'): '/dev' is under /dev, which the sandbox provides "
              "itself (expected a path elsewhere)");
    // "~" checked after expansion: a home of "/" must not expose the whole host.
    EXPECT_EQ(refusal(expose({{"~"}}), "/"),
              "at /filesystem/expose/0 ('~'): exposing '/' would undo the sandbox (expected a "
              "narrower path)");
    EXPECT_EQ(refusal(expose({{"~"}}), "home"), "the home directory 'home' is not absolute");
}

TEST(Exposure, SamePathTwiceNamesBothEntries)
{
    FakeHome home;
    EXPECT_EQ(refusal(expose({{"~/.claude"}, {"/etc/hostname"}, {(home / ".claude/").string()}}),
                      home.path()),
              "at /filesystem/expose/2 ('" + (home / ".claude/").string() + "'): '" +
                  (home / ".claude").string() +
                  "' is also exposed by /filesystem/expose/0 (expected each path once)");
    EXPECT_EQ(refusal(expose({{"~/.c*"}, {"~/.cl*"}}), home.path()),
              "at /filesystem/expose/1 ('~/.cl*'): '" + (home / ".claude").string() +
                  "' is also exposed by /filesystem/expose/0 (expected each path once)");
}

TEST(Exposure, ExplicitEntryOverridesAGlobMatch)
{
    FakeHome home;
    auto plan = sb::planExposures(expose({{"~/.c*", sb::AccessMode::ReadOnly, false},
                                          {"~/.claude", sb::AccessMode::ReadWrite, false}}),
                                  home.path());
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(mountPaths(*plan),
              (std::vector<fs::path>{home / ".claude", home / ".claude.json", home / ".config"}));
    EXPECT_EQ(plan->mounts[0].mode, sb::AccessMode::ReadWrite);
    EXPECT_EQ(plan->mounts[0].entry, 1u);
    EXPECT_EQ(plan->mounts[1].mode, sb::AccessMode::ReadOnly);
}

TEST(Exposure, SensitiveListIsInOnePlace)
{
    const auto list = sb::sensitiveHomePaths();
    for (const char* expected : {".ssh", ".aws", ".gnupg", ".config/gh", ".netrc", ".kube", ".pki"})
        EXPECT_NE(std::find(list.begin(), list.end(), expected), list.end()) << expected;
}

// Sandbench's own folders (sessions and their layers, recordings, sockets, keys) as they lie
// under a home whose XDG variables are unset.
struct OwnFolders {
    explicit OwnFolders(const FakeHome& home)
        : all{home / ".config/sandbench", home / ".local/state/sandbench",
              home / ".local/share/sandbench"}
    {
        for (const fs::path& dir : all)
            fs::create_directories(dir / "sessions");
    }
    std::vector<fs::path> all;
};

TEST(Exposure, SandbenchsOwnFoldersAreMaskedUnderAnyExposure)
{
    FakeHome home;
    OwnFolders own(home);
    auto plan = sb::planExposures(expose({{"~", sb::AccessMode::ReadWrite, false}}), home.path(),
                                  {}, own.all);
    ASSERT_TRUE(plan) << plan.error().message;
    for (const fs::path& dir : own.all)
        EXPECT_EQ(std::count(plan->masks.begin(), plan->masks.end(), dir), 1) << dir;
    // Their parents are pinned, so nothing inside can move them aside on the host.
    for (const char* parent : {".config", ".local", ".local/state", ".local/share"})
        EXPECT_EQ(std::count(plan->pins.begin(), plan->pins.end(), home / parent), 1) << parent;
    EXPECT_EQ(std::count(plan->pins.begin(), plan->pins.end(), home.path()), 0)
        << "the mount itself is a mount point already";

    // Read-only, nothing can be moved: masks without pins.
    auto readOnly = sb::planExposures(expose({{"~"}}), home.path(), {}, own.all);
    ASSERT_TRUE(readOnly) << readOnly.error().message;
    EXPECT_EQ(std::count(readOnly->masks.begin(), readOnly->masks.end(), own.all[1]), 1);
    EXPECT_TRUE(readOnly->pins.empty());
}

TEST(Exposure, SandbenchsOwnFoldersAreNeverExposedEvenByName)
{
    FakeHome home;
    OwnFolders own(home);
    for (const char* spelled : {"~/.local/state/sandbench", "~/.local/share/sandbench/sessions"}) {
        auto plan = sb::planExposures(expose({{spelled}}), home.path(), {}, own.all);
        ASSERT_FALSE(plan) << spelled;
        EXPECT_NE(plan.error().message.find("Sandbench's own folder"), std::string::npos)
            << plan.error().message;
        EXPECT_NE(plan.error().message.find("/filesystem/expose/0"), std::string::npos)
            << plan.error().message;
    }
    // Nor through a link with an innocent name.
    fs::create_directory_symlink(own.all[1], home / "work/state");
    auto linked = sb::planExposures(expose({{"~/work/state"}}), home.path(), {}, own.all);
    ASSERT_FALSE(linked);
    EXPECT_NE(linked.error().message.find("Sandbench's own folder"), std::string::npos);
    // A glob passes over them.
    auto glob = sb::planExposures(expose({{"~/.config/*"}}), home.path(), {}, own.all);
    ASSERT_TRUE(glob) << glob.error().message;
    EXPECT_EQ(mountPaths(*glob), (std::vector<fs::path>{home / ".config/editor"}));
}

TEST(Exposure, AProjectHoldingSandbenchsFoldersMasksThem)
{
    FakeHome home;
    OwnFolders own(home);
    auto asHome = sb::planProjectMasks(home.path(), home.path(), own.all);
    ASSERT_TRUE(asHome) << asHome.error().message;
    for (const fs::path& dir : own.all)
        EXPECT_EQ(std::count(asHome->begin(), asHome->end(), dir), 1) << dir;
    // A workspace Sandbench made inside its own folders (an E2B sandbox's) shows itself alone.
    auto inside = sb::planProjectMasks(own.all[1] / "sessions", home.path(), own.all);
    ASSERT_TRUE(inside) << inside.error().message;
    EXPECT_TRUE(inside->empty());
}
