// The E2B API without a network or a sandbox: the Connect framing, and requests in memory
// against a fake launcher and fake supervisors (tests/support/E2bTestSupport.h). The real SDK
// against real sessions is tests/js/e2b.test.mjs.
#include "E2bApiFixture.h"

using nlohmann::json;
using sbtest::MemoryExchange;
using sbtest::parseStream;
using sbtest::Stream;

TEST(Connect, EnvelopesAndTheEndOfAStream)
{
    EXPECT_EQ(sb::e2b::envelope("{}"), std::string("\0\0\0\0\2{}", 7));
    const sb::e2b::RpcError error{"not_found", "no such process"};
    const Stream s = parseStream(sb::e2b::envelope(R"({"a":1})") + sb::e2b::endOfStream(&error));
    ASSERT_EQ(s.messages.size(), 1u);
    EXPECT_EQ(s.messages[0]["a"], 1);
    EXPECT_EQ(s.end["error"]["code"], "not_found");
    EXPECT_EQ(parseStream(sb::e2b::endOfStream()).end, json::object());
    EXPECT_EQ(sb::e2b::httpStatusOf("not_found"), 404);
    EXPECT_EQ(sb::e2b::httpStatusOf("already_exists"), 409);
    EXPECT_EQ(sb::e2b::httpStatusOf("made_up"), 500);
}

TEST(Connect, AStreamingRequestIsOneEnvelopeOfOneObject)
{
    auto ok = sb::e2b::streamRequest(sb::e2b::envelope(R"({"process": {"cmd": "ls"}})"));
    ASSERT_TRUE(ok) << ok.error().message;
    EXPECT_EQ((*ok)["process"]["cmd"], "ls");
    struct Case {
        std::string body;
        const char* why;
    };
    const Case bad[] = {
        {"", "too short"},
        {std::string("\1\0\0\0\2{}", 7), "compressed"},
        {std::string("\0\0\0\0\5{}", 7), "the envelope says 5 bytes, the body has 2"},
        {std::string("\0\0\0\0\2{}x", 8), "the envelope says 2 bytes, the body has 3"},
        {std::string("\0\0\0\0\2[]", 7), "must be a JSON object"},
        {std::string("\0\0\0\0\2{x", 7), "not JSON"},
    };
    for (const Case& c : bad) {
        auto r = sb::e2b::streamRequest(c.body);
        ASSERT_FALSE(r) << c.why;
        EXPECT_NE(r.error().message.find(c.why), std::string::npos) << r.error().message;
    }
    EXPECT_EQ(*sb::e2b::unaryRequest(""), json::object()) << "an empty body is the empty message";
}

TEST_F(E2bApiTest, TheControlPlaneNeedsTheKeyAndAnswersInTheShapesTheSdkReads)
{
    EXPECT_EQ(rest("POST", "/v2/sandboxes", "{}", "").status, 401);
    auto wrong = rest("POST", "/v2/sandboxes", "{}", "sb_other");
    EXPECT_EQ(wrong.status, 401);
    EXPECT_EQ(json::parse(wrong.response)["code"], 401);
    EXPECT_EQ(launcher.started, 0);

    const json sandbox = create();
    EXPECT_EQ(sandbox["sandboxID"], "fake-1");
    EXPECT_EQ(sandbox["envdVersion"], "0.6.4");
    EXPECT_EQ(sandbox["envdAccessToken"].get<std::string>().size(), 32u);

    auto got = rest("GET", "/sandboxes/fake-1");
    ASSERT_EQ(got.status, 200) << got.response;
    const json detail = json::parse(got.response);
    EXPECT_EQ(detail["state"], "running");
    EXPECT_EQ(detail["memoryMB"], 512);
    EXPECT_LT(detail["startedAt"].get<std::string>(), detail["endAt"].get<std::string>());

    auto list = rest("GET", "/v2/sandboxes?state=running");
    ASSERT_EQ(list.status, 200);
    EXPECT_EQ(json::parse(list.response).size(), 1u);
    EXPECT_FALSE(json::parse(list.response)[0].contains("envdAccessToken"));

    EXPECT_EQ(rest("POST", "/sandboxes/fake-1/timeout", R"({"timeout": 60})").status, 204);
    EXPECT_EQ(rest("DELETE", "/sandboxes/fake-1").status, 204);
    EXPECT_EQ(launcher.stopped, 1);
    // The SDK turns a 404 into "not found" only when the body's code says 404.
    auto gone = rest("DELETE", "/sandboxes/fake-1");
    EXPECT_EQ(gone.status, 404);
    EXPECT_EQ(json::parse(gone.response)["code"], 404);
}

TEST_F(E2bApiTest, BadControlPlaneRequestsGetAnErrorNamingWhatIsWrong)
{
    struct Case {
        std::string method, target, body;
        int status;
        const char* says;
    };
    const Case cases[] = {
        {"POST", "/v2/sandboxes", "{", 400, "not JSON"},
        {"POST", "/v2/sandboxes", R"({"timeout": -1})", 400, "timeout must be"},
        {"POST", "/v2/sandboxes", R"({"templateID": 5})", 400, "templateID must be a string"},
        {"POST", "/v2/sandboxes", R"({"envVars": {"A": 1}})", 400, "envVars.A must be a string"},
        {"POST", "/v2/sandboxes", R"({"templateID": "gpu"})", 404, "template 'gpu' not found"},
        {"POST", "/sandboxes/nope/timeout", R"({"timeout": 5})", 404, "sandbox nope not found"},
        {"POST", "/sandboxes/nope/pause", "", 404, "sandbox nope not found"},
        {"PUT", "/sandboxes", "", 501, "PUT /sandboxes is not supported"},
    };
    for (const Case& c : cases) {
        auto ex = rest(c.method, c.target, c.body);
        EXPECT_EQ(ex.status, c.status) << c.target << " " << c.body;
        const json body = json::parse(ex.response, nullptr, false);
        ASSERT_TRUE(body.is_object()) << ex.response;
        EXPECT_EQ(body["code"], c.status);
        EXPECT_NE(body["message"].get<std::string>().find(c.says), std::string::npos)
            << body["message"];
    }
}

TEST_F(E2bApiTest, AProcessStreamsStartDataEndAndTheEndOfTheStream)
{
    const json sandbox = create();
    const json start = {{"process", {{"cmd", "/bin/bash"}, {"args", {"-l", "-c", "echo hi"}}}},
                        {"stdin", false}};
    auto ex = envd(sandbox, "/process.Process/Start", sb::e2b::envelope(start.dump()));
    EXPECT_EQ(ex.status, 200);
    EXPECT_EQ(ex.contentType, "application/connect+json");
    const Stream s = parseStream(ex.response);
    ASSERT_EQ(s.messages.size(), 3u) << ex.response;
    EXPECT_EQ(s.messages[0]["event"]["start"]["pid"], 41);
    EXPECT_EQ(s.messages[1]["event"]["data"]["stdout"], "b3V0Cg=="); // "out\n"
    EXPECT_EQ(s.messages[2]["event"]["end"]["exitCode"], 0);
    EXPECT_TRUE(s.ended);
    EXPECT_EQ(s.end, json::object());

    const json failing = {{"process", {{"cmd", "fail"}}}};
    const Stream f = parseStream(
        envd(sandbox, "/process.Process/Start", sb::e2b::envelope(failing.dump())).response);
    ASSERT_FALSE(f.messages.empty());
    EXPECT_EQ(f.messages.back()["event"]["end"]["exitCode"], 7);
    EXPECT_EQ(f.messages.back()["event"]["end"]["error"], "exit status 7");

    // A malformed request is the stream's error, as Connect has it.
    const Stream bad = parseStream(envd(sandbox, "/process.Process/Start", "{}").response);
    EXPECT_TRUE(bad.messages.empty());
    EXPECT_EQ(bad.end["error"]["code"], "invalid_argument");
    const Stream noCmd = parseStream(
        envd(sandbox, "/process.Process/Start", sb::e2b::envelope(R"({"process": {}})")).response);
    EXPECT_NE(noCmd.end["error"]["message"].get<std::string>().find("process.cmd"),
              std::string::npos);
}

TEST_F(E2bApiTest, FilesAndTheFilesystemServiceAnswerAsEnvdDoes)
{
    const json sandbox = create();
    auto read = envd(sandbox, "/files?path=hello.txt", "", "GET");
    EXPECT_EQ(read.status, 200);
    EXPECT_EQ(read.response, "hello");
    auto missing = envd(sandbox, "/files?path=%2Fnope", "", "GET");
    EXPECT_EQ(missing.status, 404);
    EXPECT_EQ(json::parse(missing.response)["code"], 404);

    auto stat = envd(sandbox, "/filesystem.Filesystem/Stat", R"({"path": "/home/user/hello.txt"})");
    ASSERT_EQ(stat.status, 200) << stat.response;
    const json entry = json::parse(stat.response)["entry"];
    EXPECT_EQ(entry["type"], "FILE_TYPE_FILE");
    EXPECT_EQ(entry["size"], "5");
    EXPECT_EQ(entry["permissions"], "-rw-r--r--");
    EXPECT_EQ(entry["modifiedTime"], "2023-11-14T22:13:20.123456789Z");
    auto notThere = envd(sandbox, "/filesystem.Filesystem/Stat", R"({"path": "nope"})");
    EXPECT_EQ(notThere.status, 404);
    EXPECT_EQ(json::parse(notThere.response)["code"], "not_found");

    // Depth 1: the folder's own entries, not what lies deeper.
    auto list = envd(sandbox, "/filesystem.Filesystem/ListDir", R"({"path": "~", "depth": 1})");
    ASSERT_EQ(list.status, 200) << list.response;
    const json entries = json::parse(list.response)["entries"];
    ASSERT_EQ(entries.size(), 2u) << entries;
    EXPECT_EQ(entries[1]["path"], "/home/user/sub");
    EXPECT_EQ(entries[1]["type"], "FILE_TYPE_DIRECTORY");

    auto made = envd(sandbox, "/filesystem.Filesystem/MakeDir", R"({"path": "hello.txt"})");
    EXPECT_EQ(made.status, 409) << "it exists";
    auto wrote = envd(sandbox, "/files?path=notes%2Fa.txt", "text", "POST");
    ASSERT_EQ(wrote.status, 200) << wrote.response;
    EXPECT_EQ(json::parse(wrote.response)[0]["path"], "/home/user/notes/a.txt");
}

// A file larger than one request is one upload: the target changes only with its last part,
// and an upload refused half way is given up, so that the target stays as it was.
TEST_F(E2bApiTest, ALargeFileIsOneUploadGivenUpWhenItFails)
{
    makeApi(std::size_t{10} << 20);
    const json sandbox = create();
    const std::size_t part = sb::proto::kMaxFileChunk / 2;
    auto wrote = envd(sandbox, "/files?path=big.bin", std::string(part + part / 2, 'x'), "POST");
    ASSERT_EQ(wrote.status, 200) << wrote.response;
    auto writes = m_supervisors.back().writes();
    ASSERT_EQ(writes.size(), 2u) << json(writes);
    EXPECT_EQ(writes[0].value("more", false), true) << writes[0];
    EXPECT_FALSE(writes[0].contains("append")) << writes[0];
    EXPECT_EQ(writes[0]["bytes"], part);
    EXPECT_TRUE(writes[1].contains("upload")) << writes[1];
    EXPECT_FALSE(writes[1].value("more", false)) << writes[1];
    EXPECT_FALSE(writes[1].contains("append")) << writes[1];
    EXPECT_EQ(writes[1]["bytes"], part / 2);

    auto tooLarge =
        envd(sandbox, "/files?path=big.bin", std::string(std::size_t{11} << 20, 'y'), "POST");
    EXPECT_EQ(tooLarge.status, 400) << tooLarge.response;
    writes = m_supervisors.back().writes();
    ASSERT_GE(writes.size(), 4u) << json(writes);
    EXPECT_EQ(writes.back().value("abort", false), true) << writes.back();
    EXPECT_EQ(writes.back()["upload"], writes[2]["id"]) << json(writes);
    for (std::size_t i = 2; i + 1 < writes.size(); ++i)
        EXPECT_TRUE(writes[i].value("more", false)) << "a part replaced the file: " << writes[i];
}

TEST_F(E2bApiTest, TheInSandboxApiNeedsTheSandboxAndItsToken)
{
    const json sandbox = create();
    MemoryExchange unknown("GET", "/health", "", {{"E2b-Sandbox-Id", "nope"}});
    api->handle(unknown);
    EXPECT_EQ(unknown.status, 502) << "the SDK's isRunning() is false only on 502";
    MemoryExchange noToken("POST", "/filesystem.Filesystem/Stat", "{}",
                           {{"E2b-Sandbox-Id", sandbox["sandboxID"].get<std::string>()}});
    api->handle(noToken);
    EXPECT_EQ(noToken.status, 401);
    EXPECT_EQ(json::parse(noToken.response)["code"], "unauthenticated");
    EXPECT_EQ(envd(sandbox, "/health", "", "GET").status, 204);
    EXPECT_EQ(json::parse(envd(sandbox, "/process.Process/StreamInput", "{}").response)["code"],
              "unimplemented");
    // Fields of unexpected types are the client's error, never a crash.
    auto typed =
        envd(sandbox, "/process.Process/SendSignal", R"({"process": {"pid": "x"}, "signal": []})");
    EXPECT_EQ(typed.status, 400) << typed.response;
}
