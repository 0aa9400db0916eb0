// File metadata (docs/protocol.md, "Files"): a write's "metadata" become the file's
// "user.e2b." attributes inside the sandbox, set before the file is put in place; stat and
// list show them, whoever set them (a process of the sandbox too); a rename keeps them, a
// write that replaces the file without them leaves none; what cannot be kept is refused.
#include "IntegrationSupport.h"
#include "base/Bytes.h"
#include "control/ControlClient.h"

namespace fs = std::filesystem;
using nlohmann::json;
using sbit::dump;

namespace {

class FileMetadata : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
    std::string session = "metadata";
    std::unique_ptr<sb::ControlClient> client;
    std::uint64_t nextId = 1;

    void SetUp() override
    {
        auto r = sb.cli({"start", "--workspace", sb.workspace().string(), "--name", session});
        ASSERT_EQ(r.status, 0) << dump(r);
        auto c = sb::ControlClient::connectPath(fs::path(sb.env()["XDG_RUNTIME_DIR"]) /
                                                    "sandbench" / (session + ".sock"),
                                                "test", sb::proto::Role::Viewer);
        ASSERT_TRUE(c) << c.error().describe();
        client = std::move(*c);
    }
    void TearDown() override { (void)sb.cli({"kill", session}); }

    // The reply to one file request (an error message's body as it is).
    json request(json body)
    {
        const std::uint64_t id = nextId++;
        body["id"] = id;
        EXPECT_FALSE(
            client->send(sb::proto::jsonMessage(sb::proto::MsgType::FileRequest, std::move(body))));
        for (;;) {
            auto m = client->receive(30000);
            if (!m) return {{"ok", false}, {"receive", m.error().describe()}};
            if ((m->type == sb::proto::MsgType::FileReply ||
                 m->type == sb::proto::MsgType::Error) &&
                m->body.value("id", std::uint64_t{0}) == id)
                return m->type == sb::proto::MsgType::Error
                           ? json{{"ok", false}, {"error", m->body}}
                           : m->body;
        }
    }
    json write(const std::string& path, const std::string& content, json metadata = nullptr)
    {
        json body = {{"op", "write"}, {"path", path}, {"data_base64", sb::base64(content)}};
        if (!metadata.is_null()) body["metadata"] = std::move(metadata);
        return request(std::move(body));
    }
    json stat(const std::string& path) { return request({{"op", "stat"}, {"path", path}}); }
};

TEST_F(FileMetadata, AWriteKeepsItsMetadataOnTheFileAndARenameCarriesThem)
{
    const json metadata = {{"author", "mish"}, {"purpose", "upload"}};
    ASSERT_TRUE(write("notes/a.txt", "text", metadata).value("ok", false));
    const json a = stat("notes/a.txt");
    ASSERT_TRUE(a.value("ok", false)) << a;
    EXPECT_EQ(a["metadata"], metadata) << a;

    const json listed = request({{"op", "list"}, {"path", "notes"}});
    ASSERT_TRUE(listed.value("ok", false)) << listed;
    ASSERT_EQ(listed["entries"].size(), 1u) << listed;
    EXPECT_EQ(listed["entries"][0]["metadata"], metadata) << listed;

    ASSERT_TRUE(request({{"op", "rename"}, {"path", "notes/a.txt"}, {"to", "notes/b.txt"}})
                    .value("ok", false));
    EXPECT_EQ(stat("notes/b.txt")["metadata"], metadata);

    // A large file is one upload: its metadata come with the first part, and are there once
    // the last one put it in place.
    const json first = request({{"op", "write"},
                                {"path", "big.txt"},
                                {"data_base64", sb::base64("part one, ")},
                                {"more", true},
                                {"metadata", {{"kind", "upload"}}}});
    ASSERT_TRUE(first.value("ok", false)) << first;
    EXPECT_FALSE(stat("big.txt").value("ok", false)) << "the target changed before the end";
    const json last = request({{"op", "write"},
                               {"path", "big.txt"},
                               {"upload", first["upload"]},
                               {"data_base64", sb::base64("part two")}});
    ASSERT_TRUE(last.value("ok", false)) << last;
    EXPECT_EQ(stat("big.txt")["metadata"], json({{"kind", "upload"}}));
}

TEST_F(FileMetadata, AReplacingWriteWithoutThemLeavesNone)
{
    ASSERT_TRUE(write("a.txt", "first", {{"author", "mish"}}).value("ok", false));
    ASSERT_TRUE(write("a.txt", "second").value("ok", false));
    const json a = stat("a.txt");
    ASSERT_TRUE(a.value("ok", false)) << a;
    EXPECT_FALSE(a.contains("metadata")) << a;
}

TEST_F(FileMetadata, WhatAProcessOfTheSandboxSetsShowsToo)
{
    ASSERT_TRUE(write("set-inside.txt", "x").value("ok", false));
    auto r = sb.cli({"exec", session, "--", "python3", "-c",
                     "import os; os.setxattr('set-inside.txt', 'user.e2b.Owner', b'agent'); "
                     "os.setxattr('set-inside.txt', 'user.other', b'not metadata')"});
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_EQ(stat("set-inside.txt")["metadata"], json({{"Owner", "agent"}}));
}

TEST_F(FileMetadata, WhatCannotBeKeptIsRefusedAndTheFileLeftAsItWas)
{
    ASSERT_TRUE(write("kept.txt", "old").value("ok", false));
    for (const json& bad :
         {json{{"", "empty key"}}, json{{"key", "line\nbreak"}}, json{{"k\x01", "v"}},
          json{{"key", 5}}, json::array({"a"}), json{{std::string(300, 'k'), "v"}},
          json{{"big", std::string(5000, 'v')}}}) {
        const json reply = write("kept.txt", "new", bad);
        EXPECT_FALSE(reply.value("ok", false)) << bad << " was taken: " << reply;
    }
    EXPECT_FALSE(request({{"op", "write"},
                          {"path", "kept.txt"},
                          {"data_base64", sb::base64("more")},
                          {"append", true},
                          {"metadata", {{"a", "b"}}}})
                     .value("ok", false))
        << "metadata with append";
    EXPECT_EQ(sb.cli({"files", "get", session, "kept.txt"}).out, "old");
    EXPECT_FALSE(stat("kept.txt").contains("metadata"));
}

} // namespace
