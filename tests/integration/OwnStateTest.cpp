// Sandbench's own folders (sessions and their layers, the recordings, the control sockets, its
// configuration) stay out of every sandbox, whatever its policy exposes: an agent that could
// change them could rewrite another session's project and have `apply` write where it likes,
// answer its own approvals, or edit the audit record. Real sandboxes, started by the real CLI.
#include "IntegrationSupport.h"

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;
using sbit::quote;
using sbit::withOptions;

namespace {

class OwnState : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
    // XDG_STATE_HOME, XDG_DATA_HOME and XDG_RUNTIME_DIR lie in here (IntegrationSupport.h);
    // XDG_CONFIG_HOME is unset, so the configuration is ~/.config/sandbench.
    fs::path xdg() const { return sb.sessions().parent_path().parent_path().parent_path(); }
};

TEST_F(OwnState, HiddenAndImmovableWhateverThePolicyExposes)
{
    auto first = sb.run("first", {"sh", "-c", "echo changed > README.md"});
    ASSERT_EQ(first.status, 0) << dump(first);
    fs::create_directories(sb.home() / ".config/sandbench");
    const std::string before = sbtest::readFile(sb.sessions() / "first/session.json");

    const std::string x = xdg().string();
    auto policy = sb.writePolicy(R"({"version": 1, "filesystem": {"expose": [)"
                                 R"({"path": ")" +
                                 x +
                                 R"(", "mode": "rw"},)"
                                 R"({"path": "~", "mode": "rw"}]}})");
    std::string script;
    auto line = [&script](const std::string& text) { script += text + "\n"; };
    for (const std::string& dir : {x + "/state/sandbench", x + "/data/sandbench",
                                   x + "/runtime/sandbench", std::string("~/.config/sandbench")}) {
        line("ls -A " + dir + " >/dev/null 2>&1 && echo LISTED " + dir);
        line("touch " + dir + "/planted 2>/dev/null && echo WROTE " + dir);
    }
    line("cat " + x + "/state/sandbench/sessions/first/session.json 2>/dev/null && echo READ");
    line("mv " + x + "/state " + x + "/moved 2>/dev/null && echo MOVED-STATE");
    line("mv " + x + "/data " + x + "/moved 2>/dev/null && echo MOVED-DATA");
    // The exposure itself works, and a pinned folder stays writable: the refusals above are the
    // masks' and pins' doing.
    line("echo ok > " + x + "/visible && echo WROTE-EXPOSED");
    line("echo ok > " + x + "/state/written && echo WROTE-BESIDE");
    auto r = sb.attempt(script, withOptions({"--policy", policy.string()}));
    SB_ASSERT_RAN(r);
    EXPECT_TRUE(contains(r.out, "WROTE-EXPOSED")) << dump(r);
    EXPECT_TRUE(contains(r.out, "WROTE-BESIDE")) << "a pinned folder stays writable\n" << dump(r);
    for (const char* marker : {"LISTED", "WROTE /", "WROTE ~", "READ", "MOVED"})
        EXPECT_FALSE(contains(r.out, marker)) << marker << "\n" << dump(r);
    EXPECT_EQ(sbtest::readFile(sb.sessions() / "first/session.json"), before);
    EXPECT_TRUE(fs::is_directory(xdg() / "state/sandbench/sessions/first"));
    EXPECT_FALSE(fs::exists(xdg() / "moved"));
    EXPECT_TRUE(fs::is_directory(sb.home() / ".config/sandbench"));
}

TEST_F(OwnState, APolicyNamingThemIsRefused)
{
    auto ok = sb.run({"true"});
    ASSERT_EQ(ok.status, 0) << dump(ok);
    auto policy = sb.writePolicy(R"({"version": 1, "filesystem": {"expose": [)"
                                 R"({"path": ")" +
                                 (xdg() / "data/sandbench").string() + R"(", "mode": "ro"}]}})");
    auto r = sb.run({"true"}, withOptions({"--policy", policy.string()}));
    EXPECT_NE(r.status, 0) << dump(r);
    EXPECT_TRUE(contains(r.err, "Sandbench's own folder")) << dump(r);
    EXPECT_TRUE(contains(r.err, "/filesystem/expose/0")) << dump(r);
}

TEST_F(OwnState, ApplyRefusesAProjectItsRecordingDoesNotKnow)
{
    auto r = sb.run("moved", {"sh", "-c", "echo planted > key"});
    ASSERT_EQ(r.status, 0) << dump(r);
    // Someone rewrote session.json to aim the changes elsewhere.
    const fs::path file = sb.sessions() / "moved/session.json";
    auto json = nlohmann::json::parse(sbtest::readFile(file));
    json["project"] = sb.outside().string();
    sbtest::writeFile(file, json.dump());

    auto refused = sb.cli({"apply", "moved"});
    EXPECT_NE(refused.status, 0) << dump(refused);
    EXPECT_TRUE(contains(refused.err, "its recording says it was started on " +
                                          fs::canonical(sb.workspace()).string()))
        << dump(refused);
    EXPECT_FALSE(fs::exists(sb.outside() / "key"));
    EXPECT_FALSE(fs::exists(sb.workspace() / "key"));

    // Put back, it applies, and says where.
    json["project"] = fs::canonical(sb.workspace()).string();
    sbtest::writeFile(file, json.dump());
    auto applied = sb.cli({"apply", "moved"});
    EXPECT_EQ(applied.status, 0) << dump(applied);
    EXPECT_TRUE(contains(applied.err, "changes to " + fs::canonical(sb.workspace()).string()))
        << dump(applied);
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "key"), "planted\n");
}

} // namespace
