// E2B's snapshots and forks over the API (SnapshotApi.cpp), on a fake launcher that keeps
// snapshots by name: what each request asks of the launcher and what the SDK reads back.
#include "E2bApiFixture.h"

namespace {

using json = nlohmann::json;

TEST_F(E2bApiTest, SnapshotsAreTakenListedUsedAndDeleted)
{
    const json sbx = create();
    const std::string id = sbx["sandboxID"];
    auto named = rest("POST", "/v2/sandboxes/" + id + "/snapshots", R"({"name": "before"})");
    ASSERT_EQ(named.status, 201) << named.response;
    const json info = json::parse(named.response);
    EXPECT_EQ(info["snapshotID"], id + ":before");
    EXPECT_EQ(info["names"], json::array({"before"}));
    auto unnamed = rest("POST", "/v2/sandboxes/" + id + "/snapshots", "{}");
    ASSERT_EQ(unnamed.status, 201) << unnamed.response;
    const std::string second = json::parse(unnamed.response)["snapshotID"];
    EXPECT_EQ(rest("POST", "/v2/sandboxes/" + id + "/snapshots", R"({"name": "before"})").status,
              409);

    // Listed newest first, filtered by sandbox and name, in pages.
    auto all = rest("GET", "/snapshots");
    ASSERT_EQ(all.status, 200);
    EXPECT_EQ(json::parse(all.response).size(), 2u);
    auto byName = rest("GET", "/snapshots?name=before");
    EXPECT_EQ(json::parse(byName.response), json::array({info}));
    EXPECT_EQ(json::parse(rest("GET", "/snapshots?name=other").response).size(), 0u);
    EXPECT_EQ(json::parse(rest("GET", "/snapshots?sandboxID=nope").response).size(), 0u);
    auto page = rest("GET", "/snapshots?limit=1");
    ASSERT_EQ(json::parse(page.response).size(), 1u);
    EXPECT_EQ(json::parse(page.response)[0]["snapshotID"], second);
    EXPECT_EQ(rest("GET", "/snapshots?limit=0").status, 400);

    // A sandbox from it: the snapshot's template and files.
    auto from = rest("POST", "/v2/sandboxes",
                     json{{"templateID", id + ":before"}, {"metadata", {{"k", "v"}}}}.dump());
    ASSERT_EQ(from.status, 201) << from.response;
    EXPECT_EQ(json::parse(from.response)["templateID"], "base");
    EXPECT_EQ(launcher.last().snapshotSession, id);
    EXPECT_EQ(launcher.last().snapshotName, "before");
    EXPECT_EQ(launcher.last().envVars.at("A"), "1"); // the snapshotted sandbox's envs

    // Deleted once: then it is not found (the SDK's false).
    auto del = rest("DELETE", "/templates/" + id + "%3Abefore");
    EXPECT_EQ(del.status, 204) << del.response;
    EXPECT_EQ(rest("DELETE", "/templates/" + id + ":before").status, 404);
    EXPECT_FALSE(launcher.snapshots().contains(id + "@before"));
    EXPECT_EQ(rest("DELETE", "/templates/base").status, 501); // templates are not served
}

TEST_F(E2bApiTest, SnapshotsThatCannotBeTakenAreRefused)
{
    const json sbx = create();
    const std::string id = sbx["sandboxID"];
    launcher.canSnapshot = false;
    auto refused = rest("POST", "/v2/sandboxes/" + id + "/snapshots", "{}");
    EXPECT_EQ(refused.status, 501);
    EXPECT_NE(refused.response.find("nothing can freeze"), std::string::npos);
    EXPECT_EQ(rest("POST", "/v2/sandboxes/" + id + "/fork", "{}").status, 501);
    EXPECT_EQ(rest("POST", "/v2/sandboxes/gone/snapshots", "{}").status, 404);
    EXPECT_EQ(rest("POST", "/v2/sandboxes/" + id + "/snapshots", R"({"name": 3})").status, 400);
}

TEST_F(E2bApiTest, ForksAreNewSandboxesFromOneSnapshotThatThenGoes)
{
    const json sbx = create();
    const std::string id = sbx["sandboxID"];
    auto forked = rest("POST", "/v2/sandboxes/" + id + "/fork", R"({"count": 2, "timeout": 60})");
    ASSERT_EQ(forked.status, 201) << forked.response;
    const json results = json::parse(forked.response);
    ASSERT_EQ(results.size(), 2u);
    std::set<std::string> ids;
    for (const json& r : results) {
        ASSERT_TRUE(r.contains("sandbox")) << r;
        ids.insert(r["sandbox"]["sandboxID"].get<std::string>());
        EXPECT_EQ(
            rest("GET", "/v2/sandboxes/" + r["sandbox"]["sandboxID"].get<std::string>()).status,
            200);
    }
    EXPECT_EQ(ids.size(), 2u);
    EXPECT_FALSE(ids.contains(id));
    EXPECT_EQ(launcher.last().snapshotSession, id);
    EXPECT_TRUE(launcher.last().snapshotName.starts_with("e2b-fork-"));
    EXPECT_TRUE(launcher.snapshots().empty());                 // the fork's own snapshot went
    EXPECT_EQ(rest("GET", "/v2/sandboxes/" + id).status, 200); // the original runs on
    EXPECT_EQ(rest("POST", "/v2/sandboxes/" + id + "/fork", R"({"count": 0})").status, 400);
    EXPECT_EQ(rest("POST", "/v2/sandboxes/gone/fork", "{}").status, 404);
}

} // namespace
