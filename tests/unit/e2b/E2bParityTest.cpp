// What E2B's SDK expects of the API beyond the basics: its list of sandboxes (newest first,
// filters, pages), a 501 naming each endpoint Sandbench does not serve, a 400 naming each option
// it cannot honour, and envd's answers for links. On fake sessions (E2bApiFixture.h); the real
// SDK against real sessions is tests/js/e2b.test.mjs.
#include "E2bApiFixture.h"

#include <filesystem>
#include <stdlib.h>

using nlohmann::json;
using sbtest::MemoryExchange;

namespace {

std::vector<std::string> idsOf(const MemoryExchange& ex)
{
    std::vector<std::string> ids;
    for (const json& s : json::parse(ex.response))
        ids.push_back(s["sandboxID"]);
    return ids;
}

std::optional<std::string> header(const MemoryExchange& ex, const std::string& name)
{
    for (const auto& [k, v] : ex.headers)
        if (k == name) return v;
    return std::nullopt;
}

std::string messageOf(const MemoryExchange& ex)
{
    const json body = json::parse(ex.response, nullptr, false);
    return body.is_object() ? body.value("message", std::string()) : ex.response;
}

using Ids = std::vector<std::string>;

} // namespace

TEST_F(E2bApiTest, TheListIsNewestFirstUnlessAskedAndPagesWithTheTokenItGives)
{
    create();
    create();
    ASSERT_EQ(rest("POST", "/v2/sandboxes", R"({"templateID": "other"})").status, 201);

    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes")), (Ids{"fake-3", "fake-2", "fake-1"}));
    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes?order=desc")), (Ids{"fake-3", "fake-2", "fake-1"}));
    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes?order=asc")), (Ids{"fake-1", "fake-2", "fake-3"}));

    auto first = rest("GET", "/v2/sandboxes?limit=2");
    EXPECT_EQ(idsOf(first), (Ids{"fake-3", "fake-2"}));
    const auto token = header(first, "X-Next-Token");
    ASSERT_TRUE(token) << "a page with more after it names where they begin";
    auto second = rest("GET", "/v2/sandboxes?limit=2&nextToken=" + *token);
    EXPECT_EQ(idsOf(second), (Ids{"fake-1"}));
    EXPECT_FALSE(header(second, "X-Next-Token")) << "the last page has no token";
    // A page's token stays right when a sandbox of an earlier page goes.
    EXPECT_EQ(rest("DELETE", "/sandboxes/fake-3").status, 204);
    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes?limit=2&nextToken=" + *token)), (Ids{"fake-1"}));
    auto asc = rest("GET", "/v2/sandboxes?order=asc&limit=1");
    ASSERT_TRUE(header(asc, "X-Next-Token"));
    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes?order=asc&limit=1&nextToken=" +
                                    *header(asc, "X-Next-Token"))),
              (Ids{"fake-2"}));
}

TEST_F(E2bApiTest, TheListFiltersByTemplateStartTimeAndState)
{
    create();
    ASSERT_EQ(rest("POST", "/v2/sandboxes", R"({"templateID": "other"})").status, 201);
    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes?template=other")), (Ids{"fake-2"}));
    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes?template=nothing-like-it")), Ids{});

    const std::string started = json::parse(rest("GET", "/sandboxes/fake-2").response)["startedAt"];
    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes?startedAfter=" + started)), (Ids{"fake-2"}));
    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes?startedAfter=2000-01-01T00%3A00%3A00Z")),
              (Ids{"fake-2", "fake-1"}));
    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes?startedAfter=2999-01-01T00%3A00%3A00.5%2B02%3A00")),
              Ids{});
    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes?state=running%2Cpaused")),
              (Ids{"fake-2", "fake-1"}));

    struct Case {
        std::string query;
        const char* says;
    };
    for (const Case& c : {Case{"limit=0", "limit must be"}, Case{"limit=x", "limit must be"},
                          Case{"order=sideways", "order must be asc or desc"},
                          Case{"state=stopped", "state must be running and/or paused"},
                          Case{"startedAfter=yesterday", "startedAfter must be an RFC 3339"},
                          Case{"nextToken=made-up", "nextToken is not one this server gave"}}) {
        auto ex = rest("GET", "/v2/sandboxes?" + c.query);
        EXPECT_EQ(ex.status, 400) << c.query;
        EXPECT_NE(messageOf(ex).find(c.says), std::string::npos) << messageOf(ex);
    }
}

TEST_F(E2bApiTest, AnEndpointNotServedIsA501NamingItNeverANotFoundForARunningSandbox)
{
    const json sandbox = create();
    struct Case {
        std::string method, target;
    };
    const Case cases[] = {{"PUT", "/sandboxes/fake-1/network"},
                          {"GET", "/v2/sandboxes/fake-1/logs"},
                          {"DELETE", "/sandboxes/fake-1/snapshots"},
                          {"DELETE", "/templates/base"},
                          {"GET", "/volumes"}};
    for (const Case& c : cases) {
        auto ex = rest(c.method, c.target, "{}");
        EXPECT_EQ(ex.status, 501) << c.method << " " << c.target << ": " << ex.response;
        EXPECT_NE(messageOf(ex).find(c.method + " " + c.target + " is not supported"),
                  std::string::npos)
            << messageOf(ex);
    }
    EXPECT_EQ(rest("POST", "/sandboxes/gone/fork", "{}").status, 404)
        << "an endpoint of a sandbox that is not there is its 404";
    EXPECT_EQ(rest("GET", "/snapshots", "", "sb_wrong").status, 401);

    auto envdMetrics = envd(sandbox, "/metrics", "", "GET");
    EXPECT_EQ(envdMetrics.status, 501);
    EXPECT_NE(messageOf(envdMetrics).find("GET /metrics"), std::string::npos);
}

TEST_F(E2bApiTest, AnOptionNotHonouredIsRefusedByNameAndStartsNothing)
{
    struct Case {
        std::string body;
        const char* says;
    };
    const Case cases[] = {
        {R"({"autoPause": true, "autoPauseMemory": false})", "onTimeout.keepMemory: false"},
        {R"({"autoResume": {"enabled": true}})", "lifecycle.autoResume"},
        {R"({"mcp": {"github": {}}})", "mcp is not supported"},
        {R"({"iam": {"tokens": {"t": {"audience": "a", "tokenType": "b"}}}})", "iam is not"},
        {R"({"volumeMounts": [{"name": "v", "path": "/data"}]})", "volumeMounts is not"},
        {R"({"secure": false})", "secure: false is not"},
        {R"({"network": {"egressProxy": {"address": "p:1080"}}})", "network.egressProxy is not"},
        {R"({"network": {"maskRequestHost": "x"}})", "network.maskRequestHost is not"},
        {R"({"network": {"rules": {"a.com": [{}]}}})", "network.rules is not"},
        {R"({"network": {"allowOut": "a.com"}})", "network.allowOut must be an array"},
    };
    for (const Case& c : cases) {
        auto ex = rest("POST", "/v2/sandboxes", c.body);
        EXPECT_EQ(ex.status, 400) << c.body;
        EXPECT_NE(messageOf(ex).find(c.says), std::string::npos) << c.body << ": " << ex.response;
    }
    EXPECT_EQ(launcher.started, 0);

    // What is honoured reaches the launcher, and the sandbox's details say it.
    auto made = rest("POST", "/v2/sandboxes",
                     R"({"autoPause": false, "secure": true, "mcp": null,
                         "network": {"allowOut": ["example.com"], "denyOut": ["0.0.0.0/0"],
                                     "allowPublicTraffic": false, "rules": {}}})");
    ASSERT_EQ(made.status, 201) << made.response;
    EXPECT_EQ(launcher.last().allowOut, (std::vector<std::string>{"example.com"}));
    EXPECT_EQ(launcher.last().denyOut, (std::vector<std::string>{"0.0.0.0/0"}));
    const json info = json::parse(rest("GET", "/sandboxes/fake-1").response);
    EXPECT_EQ(info["network"]["allowOut"], json::array({"example.com"}));
    EXPECT_EQ(info["network"]["denyOut"], json::array({"0.0.0.0/0"}));

    auto reboot = rest("POST", "/v2/sandboxes/fake-1/connect", R"({"memory": false})");
    EXPECT_EQ(reboot.status, 400);
    EXPECT_NE(messageOf(reboot).find("onResume 'reboot'"), std::string::npos);
}

TEST_F(E2bApiTest, ALinksTargetIsAnAbsolutePathAsEnvdGivesIt)
{
    const json sandbox = create();
    auto stat = envd(sandbox, "/filesystem.Filesystem/Stat", R"({"path": "link.txt"})");
    ASSERT_EQ(stat.status, 200) << stat.response;
    const json entry = json::parse(stat.response)["entry"];
    EXPECT_EQ(entry["type"], "FILE_TYPE_SYMLINK");
    EXPECT_EQ(entry["symlinkTarget"], "/home/user/hello.txt");
}

TEST_F(E2bApiTest, PauseFreezesTheSandboxListsItPausedAndConnectResumesIt)
{
    const json sandbox = create();
    create();
    const sbtest::FakeSupervisor& frozen = m_supervisors.front();
    EXPECT_EQ(rest("POST", "/sandboxes/fake-1/pause", "{}").status, 204);
    EXPECT_TRUE(frozen.paused());
    auto again = rest("POST", "/sandboxes/fake-1/pause", "{}");
    EXPECT_EQ(again.status, 409) << "the SDK's pause() is false for a paused sandbox";

    EXPECT_EQ(json::parse(rest("GET", "/sandboxes/fake-1").response)["state"], "paused");
    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes?state=paused")), (Ids{"fake-1"}));
    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes?state=running")), (Ids{"fake-2"}));
    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes")), (Ids{"fake-2", "fake-1"}));
    auto health = envd(sandbox, "/health", "", "GET");
    EXPECT_EQ(health.status, 502) << "a paused sandbox does not run";
    EXPECT_NE(messageOf(health).find("paused"), std::string::npos);

    auto keepMemory = rest("POST", "/sandboxes/fake-2/pause", R"({"memory": false})");
    EXPECT_EQ(keepMemory.status, 400);
    EXPECT_NE(messageOf(keepMemory).find("keepMemory: false"), std::string::npos);

    auto resumed = rest("POST", "/v2/sandboxes/fake-1/connect", R"({"timeout": 60})");
    ASSERT_EQ(resumed.status, 200) << resumed.response;
    EXPECT_FALSE(frozen.paused());
    EXPECT_EQ(json::parse(rest("GET", "/sandboxes/fake-1").response)["state"], "running");
    EXPECT_EQ(envd(sandbox, "/health", "", "GET").status, 204);

    // A paused sandbox is thawed to be killed.
    EXPECT_EQ(rest("POST", "/sandboxes/fake-1/pause", "{}").status, 204);
    EXPECT_EQ(rest("DELETE", "/sandboxes/fake-1").status, 204);
    EXPECT_FALSE(frozen.paused());
}

TEST_F(E2bApiTest, OnTimeoutPausePausesInsteadOfKilling)
{
    auto made = rest("POST", "/v2/sandboxes", R"({"timeout": 1, "autoPause": true})");
    ASSERT_EQ(made.status, 201) << made.response;
    // The expiry thread's turn comes within a second or two; bounded, not measured.
    std::string state;
    for (int i = 0; i < 200 && state != "paused"; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        state = json::parse(rest("GET", "/sandboxes/fake-1").response).value("state", "");
    }
    EXPECT_EQ(state, "paused");
    EXPECT_EQ(launcher.stopped, 0) << "not killed";
    EXPECT_TRUE(m_supervisors.front().paused());
    EXPECT_EQ(rest("POST", "/v2/sandboxes/fake-1/connect", "{}").status, 200);
    EXPECT_EQ(json::parse(rest("GET", "/sandboxes/fake-1").response)["state"], "running");
}

// A paused sandbox outlives its server: kept when the server stops, listed paused by the next
// one, and resumed in a new session that goes on with the old one's changes.
TEST_F(E2bApiTest, APausedSandboxIsKeptForTheNextServerAndResumedThere)
{
    char dirTemplate[] = "/tmp/sb-e2b-paused-XXXXXX";
    ASSERT_NE(::mkdtemp(dirTemplate), nullptr);
    const std::filesystem::path dir = dirTemplate;
    makeApi(std::size_t{1} << 30, dir.string());
    create();
    create();
    ASSERT_EQ(rest("POST", "/sandboxes/fake-1/pause", "{}").status, 204);
    api->stopAll(); // the server stops
    EXPECT_EQ(launcher.stopped, 2) << "both sessions end, the paused one too";
    EXPECT_TRUE(std::filesystem::exists(dir / "fake-1.json"));
    EXPECT_FALSE(std::filesystem::exists(dir / "fake-2.json")) << "a running one is not kept";

    makeApi(std::size_t{1} << 30, dir.string()); // the next server
    auto listed = rest("GET", "/v2/sandboxes");
    ASSERT_EQ(idsOf(listed), (Ids{"fake-1"}));
    EXPECT_EQ(json::parse(listed.response)[0]["state"], "paused");
    MemoryExchange health("GET", "/health", "", {{"E2b-Sandbox-Id", "fake-1"}});
    api->handle(health);
    EXPECT_EQ(health.status, 502);

    auto resumed = rest("POST", "/v2/sandboxes/fake-1/connect", R"({"timeout": 60})");
    ASSERT_EQ(resumed.status, 200) << resumed.response;
    EXPECT_EQ(json::parse(resumed.response)["sandboxID"], "fake-1") << "the same sandbox id";
    EXPECT_EQ(launcher.last().resumeFrom, "fake-1") << "its changes go on in the new session";
    EXPECT_EQ(json::parse(rest("GET", "/sandboxes/fake-1").response)["state"], "running");
    EXPECT_FALSE(std::filesystem::exists(dir / "fake-1.json"));
    const json sandbox = json::parse(resumed.response);
    EXPECT_EQ(envd(sandbox, "/health", "", "GET").status, 204);

    // Killed, it goes for good: its new session ends.
    const int stopped = launcher.stopped;
    EXPECT_EQ(rest("DELETE", "/sandboxes/fake-1").status, 204);
    EXPECT_EQ(launcher.stopped, stopped + 1);
    api->stopAll();
    makeApi(std::size_t{1} << 30, dir.string());
    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes")), Ids{});
    std::filesystem::remove_all(dir);
}

TEST_F(E2bApiTest, AKeptPausedSandboxKilledBeforeItResumesIsForgotten)
{
    char dirTemplate[] = "/tmp/sb-e2b-paused-XXXXXX";
    ASSERT_NE(::mkdtemp(dirTemplate), nullptr);
    const std::filesystem::path dir = dirTemplate;
    makeApi(std::size_t{1} << 30, dir.string());
    create();
    ASSERT_EQ(rest("POST", "/sandboxes/fake-1/pause", "{}").status, 204);
    api->stopAll();
    makeApi(std::size_t{1} << 30, dir.string());
    const int started = launcher.started, stopped = launcher.stopped;
    EXPECT_EQ(rest("DELETE", "/sandboxes/fake-1").status, 204);
    EXPECT_EQ(launcher.started, started) << "nothing to start";
    EXPECT_EQ(launcher.stopped, stopped) << "nothing to stop";
    EXPECT_FALSE(std::filesystem::exists(dir / "fake-1.json"));
    EXPECT_EQ(rest("GET", "/sandboxes/fake-1").status, 404);
    std::filesystem::remove_all(dir);
}

TEST_F(E2bApiTest, AnotherUserThanTheSandboxsOwnIsRefusedNotIgnored)
{
    const json sandbox = create();
    auto as = [&](std::string target, std::string body, std::string authorization,
                  std::string method = "POST") {
        MemoryExchange ex(std::move(method), std::move(target), std::move(body),
                          {{"E2b-Sandbox-Id", sandbox["sandboxID"].get<std::string>()},
                           {"X-Access-Token", sandbox["envdAccessToken"].get<std::string>()},
                           {"Authorization", std::move(authorization)}});
        api->handle(ex);
        return ex;
    };
    const std::string root = "Basic cm9vdDo="; // "root:"
    const json start = {{"process", {{"cmd", "whoami"}}}};
    const sbtest::Stream refused = sbtest::parseStream(
        as("/process.Process/Start", sb::e2b::envelope(start.dump()), root).response);
    EXPECT_TRUE(refused.messages.empty()) << "nothing ran";
    EXPECT_EQ(refused.end["error"]["code"], "invalid_argument");
    EXPECT_NE(refused.end["error"]["message"].get<std::string>().find("user 'root' is not"),
              std::string::npos);
    auto stat = as("/filesystem.Filesystem/Stat", R"({"path": "hello.txt"})", root);
    EXPECT_EQ(stat.status, 400) << stat.response;
    auto read = envd(sandbox, "/files?path=hello.txt&username=root", "", "GET");
    EXPECT_EQ(read.status, 400) << read.response;
    EXPECT_NE(messageOf(read).find("user 'root'"), std::string::npos);

    // The sandbox's own user, by name, is who runs everything anyway.
    EXPECT_EQ(
        as("/filesystem.Filesystem/Stat", R"({"path": "hello.txt"})", "Basic dXNlcjo=").status,
        200);
    EXPECT_EQ(envd(sandbox, "/files?path=hello.txt&username=user", "", "GET").status, 200);
}

TEST_F(E2bApiTest, OnTimeoutPauseIsRefusedAtCreateWhereNothingCanFreezeTheSandbox)
{
    canPause = false;
    auto made = rest("POST", "/v2/sandboxes", R"({"timeout": 60, "autoPause": true})");
    EXPECT_EQ(made.status, 400) << made.response;
    EXPECT_NE(messageOf(made).find("lifecycle.onTimeout 'pause' cannot be honoured here: "
                                   "the sandbox has no cgroup of its own"),
              std::string::npos)
        << made.response;
    EXPECT_EQ(launcher.stopped, 1) << "its session was stopped";
    EXPECT_EQ(idsOf(rest("GET", "/v2/sandboxes")), Ids{});

    // Without onTimeout 'pause' it starts, and pause() itself says why it cannot.
    create();
    auto pause = rest("POST", "/sandboxes/fake-2/pause", "{}");
    EXPECT_EQ(pause.status, 501) << pause.response;
    EXPECT_NE(messageOf(pause).find("no cgroup of its own"), std::string::npos);
    EXPECT_EQ(json::parse(rest("GET", "/sandboxes/fake-2").response)["state"], "running");
}

TEST_F(E2bApiTest, AGzipEncodedUploadIsWrittenDecodedWithinTheBound)
{
    // "hello from gzip\n" 50 times, gzip-encoded (44 bytes).
    const std::string encoded("\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\xcb\x48\xcd\xc9\xc9\x57"
                              "\x48\x2b\xca\xcf\x55\x48\xaf\xca\x2c\xe0\xca\x18\xe5\x8f\xf2\x47"
                              "\xf9\x70\x3e\x00\x37\xb5\x70\x2b\x20\x03\x00\x00",
                              44);
    auto upload = [&](const json& sandbox, std::string body) {
        MemoryExchange ex("POST", "/files?path=g.txt", std::move(body),
                          {{"E2b-Sandbox-Id", sandbox["sandboxID"].get<std::string>()},
                           {"X-Access-Token", sandbox["envdAccessToken"].get<std::string>()},
                           {"Content-Type", "application/octet-stream"},
                           {"Content-Encoding", "gzip"}});
        api->handle(ex);
        return ex;
    };
    const json sandbox = create();
    auto written = upload(sandbox, encoded);
    ASSERT_EQ(written.status, 200) << written.response;
    EXPECT_EQ(json::parse(written.response)[0]["path"], "/home/user/g.txt");
    auto writes = m_supervisors.back().writes();
    ASSERT_FALSE(writes.empty());
    EXPECT_EQ(writes.back()["bytes"], 800u) << "the file holds what the body decodes to";

    auto cut = upload(sandbox, encoded.substr(0, 30));
    EXPECT_EQ(cut.status, 400);
    EXPECT_NE(messageOf(cut).find("cut short"), std::string::npos) << cut.response;
    auto garbage = upload(sandbox, "not gzip at all");
    EXPECT_EQ(garbage.status, 400);
    EXPECT_NE(messageOf(garbage).find("not valid gzip"), std::string::npos) << garbage.response;

    makeApi(100); // a bound below what the body decodes to
    auto tooLarge = upload(create(), encoded);
    EXPECT_EQ(tooLarge.status, 400);
    EXPECT_NE(messageOf(tooLarge).find("larger than 100 bytes once decoded"), std::string::npos)
        << tooLarge.response;
}
