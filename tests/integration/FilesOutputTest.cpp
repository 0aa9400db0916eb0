// What `files` says (issue 33, item 15): an error names its path and its cause once each; `stat`
// reads as stat(1) does (the mode in octal), its JSON keeps the protocol's fields; `ls FILE`
// lists that file as ls does. And a file only touched in a session is no change.
#include "IntegrationSupport.h"
#include "base/Bytes.h"
#include "control/ControlClient.h"

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
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

// Contents travel as bytes (file_data frames): every byte value, across a part's boundary.
TEST_F(FilesOutput, EveryByteArrivesAsItWasInBothDirections)
{
    std::string content((std::size_t{8} << 20) + 4099, '\0');
    for (std::size_t i = 0; i < content.size(); ++i)
        content[i] = static_cast<char>((i * 7 + i / 256) & 0xff);
    ASSERT_EQ(put("bytes.bin", content).status, 0);
    sbtest::TempDir local;
    auto got = sb.cli({"files", "get", session, "bytes.bin", (local.path() / "back.bin").string()});
    ASSERT_EQ(got.status, 0) << dump(got);
    EXPECT_TRUE(sbtest::readFile(local.path() / "back.bin") == content) << "changed on the way";
    auto size = sb.cli({"exec", session, "--", "stat", "-c", "%s", "bytes.bin"});
    EXPECT_EQ(size.out, std::to_string(content.size()) + "\n") << dump(size);
}

// The protocol under it: a version 4 client's contents as file_data frames, a version 3
// client's as base64, and a write that says its frame came first when none did is refused.
TEST_F(FilesOutput, ContentsTravelAsFramesFromVersionFourAndAsBase64Before)
{
    using sb::proto::MsgType;
    const fs::path socket =
        fs::path(sb.env()["XDG_RUNTIME_DIR"]) / "sandbench" / (session + ".sock");
    auto v4 = sb::ControlClient::connectPath(socket, "test", sb::proto::Role::Viewer);
    ASSERT_TRUE(v4) << v4.error().describe();
    ASSERT_GE((*v4)->version(), 4u); // this build's own: frames from version 4 on
    // Every message up to the reply to `id`, that one last.
    auto until = [](sb::ControlClient& c, std::uint64_t id) {
        std::vector<sb::proto::Message> got;
        for (;;) {
            auto m = c.receive(30000);
            if (!m) return got;
            got.push_back(*m);
            if (m->type != MsgType::FileData && m->body.value("id", std::uint64_t{0}) == id)
                return got;
        }
    };
    sb::proto::Message data;
    data.type = MsgType::FileData;
    data.seq = 1;
    data.bytes = std::string("bytes\0as they are\n", 18);
    ASSERT_FALSE((*v4)->send(data));
    ASSERT_FALSE((*v4)->send(sb::proto::jsonMessage(
        MsgType::FileRequest,
        {{"id", 1}, {"op", "write"}, {"path", "framed.bin"}, {"data_frame", true}})));
    auto wrote = until(**v4, 1);
    ASSERT_FALSE(wrote.empty());
    EXPECT_TRUE(wrote.back().body.value("ok", false)) << wrote.back().body;

    ASSERT_FALSE((*v4)->send(sb::proto::jsonMessage(
        MsgType::FileRequest,
        {{"id", 2}, {"op", "write"}, {"path", "framed.bin"}, {"data_frame", true}})));
    auto refused = until(**v4, 2);
    ASSERT_FALSE(refused.empty());
    EXPECT_EQ(refused.back().type, MsgType::Error);
    EXPECT_TRUE(contains(refused.back().body.value("message", ""), "file_data frame"))
        << refused.back().body;

    ASSERT_FALSE((*v4)->send(sb::proto::jsonMessage(
        MsgType::FileRequest,
        {{"id", 3}, {"op", "read"}, {"path", "framed.bin"}, {"data_frame", true}})));
    auto read = until(**v4, 3);
    ASSERT_EQ(read.size(), 2u);
    EXPECT_EQ(read[0].type, MsgType::FileData);
    EXPECT_EQ(read[0].seq, 3u);
    EXPECT_EQ(read[0].bytes, data.bytes);
    EXPECT_EQ(read[1].body.value("length", 0), 18);
    EXPECT_FALSE(read[1].body.contains("data_base64"));

    auto v3 = sb::ControlClient::connectPath(socket, "old", sb::proto::Role::Viewer, 5000, 3);
    ASSERT_TRUE(v3) << v3.error().describe();
    ASSERT_FALSE((*v3)->send(sb::proto::jsonMessage(
        MsgType::FileRequest,
        {{"id", 4}, {"op", "read"}, {"path", "framed.bin"}, {"data_frame", true}})));
    auto refusedOld = until(**v3, 4);
    ASSERT_EQ(refusedOld.size(), 1u) << "no file_data frame for a version 3 client";
    EXPECT_EQ(refusedOld[0].type, MsgType::Error);
    EXPECT_TRUE(contains(refusedOld[0].body.value("message", ""), "needs protocol version 4"));
    ASSERT_FALSE((*v3)->send(sb::proto::jsonMessage(
        MsgType::FileRequest, {{"id", 5}, {"op", "read"}, {"path", "framed.bin"}})));
    auto old = until(**v3, 5);
    ASSERT_EQ(old.size(), 1u);
    EXPECT_EQ(sb::fromBase64(old[0].body.value("data_base64", "")), data.bytes);
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
