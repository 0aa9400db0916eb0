// What `files` says (issue 33, item 15): an error names its path and its cause once each; `stat`
// reads as stat(1) does (the mode in octal), its JSON keeps the protocol's fields; `ls FILE`
// lists that file as ls does. And a file only touched in a session is no change.
#include "IntegrationSupport.h"

#include <nlohmann/json.hpp>

using sbit::contains;
using sbit::dump;

namespace {

std::size_t count(const std::string& text, const std::string& part)
{
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++n;
    return n;
}

class FilesOutput : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
    std::string session;

    void SetUp() override
    {
        auto r = sb.cli({"start", "--workspace", sb.workspace().string(), "--name", "out"});
        ASSERT_EQ(r.status, 0) << dump(r);
        session = "out";
    }
    void TearDown() override
    {
        if (!session.empty()) (void)sb.cli({"kill", session});
    }
    sbtest::RunResult put(const std::string& target, const std::string& content,
                          std::vector<std::string> options = {})
    {
        sbit::RunSpec spec;
        spec.input = content;
        std::vector<std::string> args = {"files", "put", session, "-", target};
        args.insert(args.end(), options.begin(), options.end());
        return sb.cli(args, spec);
    }
};

} // namespace

TEST_F(FilesOutput, AnErrorSaysThePathAndTheCauseOnce)
{
    auto evil = put("/etc/evil", "x");
    EXPECT_NE(evil.status, 0) << dump(evil);
    EXPECT_EQ(count(evil.err, "/etc/evil"), 1u) << evil.err;
    EXPECT_EQ(count(evil.err, "Read-only file system"), 1u) << evil.err;

    auto missing = sb.cli({"files", "get", session, "no-such.txt", "-"});
    EXPECT_NE(missing.status, 0) << dump(missing);
    EXPECT_EQ(count(missing.err, "no-such.txt"), 1u) << missing.err;
    EXPECT_EQ(count(missing.err, "No such file or directory"), 1u) << missing.err;

    auto gone = sb.cli({"files", "rm", session, "no-such-folder"});
    EXPECT_NE(gone.status, 0) << dump(gone);
    EXPECT_EQ(count(gone.err, "no-such-folder"), 1u) << gone.err;
    EXPECT_EQ(count(gone.err, "No such file or directory"), 1u) << gone.err;
}

TEST_F(FilesOutput, StatSaysTheModeInOctalAndItsJsonKeepsTheFields)
{
    ASSERT_EQ(put("notes.txt", "hello\n", {"--mode", "0640"}).status, 0);
    auto shown = sb.cli({"files", "stat", session, "notes.txt"});
    ASSERT_EQ(shown.status, 0) << dump(shown);
    EXPECT_TRUE(contains(shown.out, "type: file")) << shown.out;
    EXPECT_TRUE(contains(shown.out, "size: 6 bytes")) << shown.out;
    EXPECT_TRUE(contains(shown.out, "mode: 0640")) << shown.out;
    EXPECT_TRUE(contains(shown.out, "owner: uid ")) << shown.out;
    EXPECT_TRUE(contains(shown.out, "mtime: 20")) << shown.out;
    EXPECT_FALSE(contains(shown.out, "{")) << "no JSON without --json: " << shown.out;

    auto json = sb.cli({"files", "stat", session, "notes.txt", "--json"});
    ASSERT_EQ(json.status, 0) << dump(json);
    auto parsed = nlohmann::json::parse(json.out, nullptr, false);
    ASSERT_TRUE(parsed.is_object()) << json.out;
    EXPECT_EQ(parsed.value("mode", 0), 0640);
    EXPECT_EQ(parsed.value("mode_octal", ""), "0640");
    EXPECT_EQ(parsed.value("size", 0), 6);

    auto folder = sb.cli({"files", "stat", session, "."});
    ASSERT_EQ(folder.status, 0) << dump(folder);
    EXPECT_TRUE(contains(folder.out, "type: directory")) << folder.out;
}

TEST_F(FilesOutput, LsOfAFileListsThatFile)
{
    ASSERT_EQ(put("sub/notes.txt", "hello\n").status, 0);
    auto one = sb.cli({"files", "ls", session, "sub/notes.txt"});
    ASSERT_EQ(one.status, 0) << dump(one);
    EXPECT_EQ(one.out, "f sub/notes.txt (6 bytes)\n");

    auto json = sb.cli({"files", "ls", session, "sub/notes.txt", "--json"});
    ASSERT_EQ(json.status, 0) << dump(json);
    auto parsed = nlohmann::json::parse(json.out, nullptr, false);
    ASSERT_TRUE(parsed.is_object() && parsed["entries"].size() == 1) << json.out;
    EXPECT_EQ(parsed["entries"][0].value("path", ""), "sub/notes.txt");
    EXPECT_EQ(parsed["entries"][0].value("mode_octal", ""), "0644");

    auto folder = sb.cli({"files", "ls", session, "sub"});
    ASSERT_EQ(folder.status, 0) << dump(folder);
    EXPECT_EQ(folder.out, "f notes.txt (6 bytes)\n");

    auto missing = sb.cli({"files", "ls", session, "sub/nothing"});
    EXPECT_NE(missing.status, 0) << dump(missing);
    EXPECT_TRUE(contains(missing.err, "sub/nothing: No such file or directory")) << missing.err;
}

TEST(TouchedFile, IsNoChange)
{
    sbit::Sandbench sb;
    sbtest::writeFile(sb.workspace() / "README.md", "# readme\n");
    sbtest::writeFile(sb.workspace() / "main.c", "int main() {}\n");
    auto ran = sb.run("touched", {"bash", "-c", "touch README.md; echo changed >> main.c"});
    ASSERT_EQ(ran.status, 0) << dump(ran);
    auto changes = sb.cli({"changes", "touched"});
    ASSERT_EQ(changes.status, 0) << dump(changes);
    EXPECT_EQ(changes.out, "M main.c\n");
    auto diff = sb.cli({"diff", "touched"});
    EXPECT_FALSE(contains(diff.out, "README.md")) << diff.out;
    auto applied = sb.cli({"apply", "touched"});
    ASSERT_EQ(applied.status, 0) << dump(applied);
    EXPECT_EQ(applied.out, "applied  main.c\n");
}
