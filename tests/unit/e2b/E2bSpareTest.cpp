// Spare sandboxes (docs/e2b.md, "Spare sandboxes") against the fake launcher: one started ahead
// per template from its first create on, handed once to a create a fresh start would give the
// same sandbox, with that create's own token, metadata and timeout; never listed before.
#include "E2bApiFixture.h"
#include "e2b/E2bInternal.h"

#include <thread>

using nlohmann::json;

namespace {

class E2bSpareTest : public E2bApiTest {
  protected:
    E2bSpareTest() { makeApi(std::size_t{1} << 20, {}, true); }
    // Waits (no timing asserted) until the launcher has started `n` sessions.
    bool startedAtLeast(int n)
    {
        for (int i = 0; i < 20000 && launcher.started < n; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return launcher.started >= n;
    }
    json listed()
    {
        auto ex = rest("GET", "/v2/sandboxes");
        EXPECT_EQ(ex.status, 200) << ex.response;
        return json::parse(ex.response);
    }
};

} // namespace

TEST_F(E2bSpareTest, TheNextCreateTakesTheSpareWithItsOwnFieldsAndANewOneStarts)
{
    const json first = create(); // the template's first: a fresh start
    EXPECT_EQ(first["sandboxID"], "fake-1");
    ASSERT_TRUE(startedAtLeast(2)) << "the spare started ahead";
    EXPECT_TRUE(launcher.last().metadata.empty()) << "a spare is started from its template alone";
    EXPECT_TRUE(launcher.last().envVars.empty());
    ASSERT_EQ(listed().size(), 1u) << "the spare is no sandbox until a create takes it";
    EXPECT_EQ(rest("GET", "/v2/sandboxes/fake-2").status, 404);

    auto ex = rest("POST", "/v2/sandboxes",
                   R"({"templateID": "base", "metadata": {"who": "second"}, "timeout": 77})");
    ASSERT_EQ(ex.status, 201) << ex.response;
    const json second = json::parse(ex.response);
    EXPECT_EQ(second["sandboxID"], "fake-2") << "the spare";
    EXPECT_NE(second["envdAccessToken"], first["envdAccessToken"]);
    auto detail = rest("GET", "/v2/sandboxes/fake-2");
    ASSERT_EQ(detail.status, 200);
    const json d = json::parse(detail.response);
    EXPECT_EQ(d["metadata"]["who"], "second");
    const long long started = *sb::e2b::parseRfc3339(d["startedAt"].get<std::string>());
    const long long ends = *sb::e2b::parseRfc3339(d["endAt"].get<std::string>());
    EXPECT_EQ((ends - started) / 1000000000LL, 77) << "its timeout from the create on";
    EXPECT_EQ(listed().size(), 2u);
    ASSERT_TRUE(startedAtLeast(3)) << "the next spare";

    // A different template has none until it was asked for once.
    auto other = rest("POST", "/v2/sandboxes", R"({"templateID": "other"})");
    ASSERT_EQ(other.status, 201) << other.response;
    EXPECT_EQ(json::parse(other.response)["sandboxID"], "fake-4");
    ASSERT_TRUE(startedAtLeast(5));
    EXPECT_EQ(launcher.last().templateId, "other");
}

TEST_F(E2bSpareTest, ACreateThatChangesTheSandboxStartsFresh)
{
    create();
    ASSERT_TRUE(startedAtLeast(2));
    auto offline =
        rest("POST", "/v2/sandboxes", R"({"templateID": "base", "allow_internet_access": false})");
    ASSERT_EQ(offline.status, 201) << offline.response;
    EXPECT_EQ(json::parse(offline.response)["sandboxID"], "fake-3") << "not the spare";
    EXPECT_EQ(launcher.last().internet, false);
    auto rules = rest("POST", "/v2/sandboxes",
                      R"({"templateID": "base", "network": {"allowOut": ["1.2.3.4"]}})");
    ASSERT_EQ(rules.status, 201) << rules.response;
    EXPECT_EQ(json::parse(rules.response)["sandboxID"], "fake-4");
    // The spare waited for a create that may have it.
    EXPECT_EQ(json::parse(rest("POST", "/v2/sandboxes", "{}").response)["sandboxID"], "fake-2");
}

TEST_F(E2bSpareTest, StopAllStopsTheSpareAndNoneComesAfter)
{
    create();
    ASSERT_TRUE(startedAtLeast(2));
    api->stopAll();
    EXPECT_EQ(launcher.stopped, 2) << "the sandbox and the spare";
    const json after = create();
    EXPECT_EQ(after["sandboxID"], "fake-3") << "a fresh start once spares are stopped";
    EXPECT_EQ(launcher.started, 3);
}

TEST_F(E2bSpareTest, ASpareOlderThanItsAgeIsReplaced)
{
    api.reset();
    sb::e2b::ApiOptions options;
    options.apiKey = "sb_key";
    options.spares = true;
    options.spareMaxAge = std::chrono::seconds(0);
    options.connect =
        [this](const std::string&) -> sb::Result<std::unique_ptr<sb::e2b::SessionLink>> {
        std::lock_guard lock(m_mutex);
        return m_supervisors.emplace_back().link();
    };
    api = std::make_unique<sb::e2b::Api>(launcher, options);
    create();
    ASSERT_TRUE(startedAtLeast(4)) << "spares replaced as they age";
    EXPECT_GE(launcher.stopped, 2);
}
