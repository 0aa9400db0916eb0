// getHost(port) over the API (PortHost.cpp): the domain the SDK is told, the names it builds
// from it, and a request for such a name sent on to the port's preview.
#include "E2bApiFixture.h"
#include "e2b/E2bInternal.h"

namespace {

using json = nlohmann::json;
using sbtest::MemoryExchange;

TEST(PortHostTest, NamesOfAPortOfASandbox)
{
    auto h = sb::e2b::parsePortHost("8000-20261206-161555-abc123.localhost:41837");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->port, 8000u);
    EXPECT_EQ(h->sandbox, "20261206-161555-abc123");
    EXPECT_TRUE(sb::e2b::parsePortHost("3000-x.LOCALHOST"));
    EXPECT_TRUE(sb::e2b::parsePortHost("3000-x.localhost."));
    for (const char* not_one :
         {"localhost:41837", "127.0.0.1:41837", "8000.localhost", "8000-.localhost",
          "0-x.localhost", "70000-x.localhost", "8000-x.localhost:port", "8000-x_y.localhost",
          "8000-x.example", "x-8000.localhost", "[::1]:41837", ""})
        EXPECT_FALSE(sb::e2b::parsePortHost(not_one)) << not_one;
}

TEST_F(E2bApiTest, TheDomainNamesThisServerAndItsPortNamesReachThePortsPreview)
{
    MemoryExchange created("POST", "/v2/sandboxes", R"({"templateID": "base"})",
                           {{"X-API-Key", "sb_key"}, {"Host", "127.0.0.1:41837"}});
    api->handle(created);
    ASSERT_EQ(created.status, 201) << created.response;
    const json sbx = json::parse(created.response);
    EXPECT_EQ(sbx["domain"], "localhost:41837");
    const std::string id = sbx["sandboxID"];
    MemoryExchange info("GET", "/sandboxes/" + id, "",
                        {{"X-API-Key", "sb_key"}, {"Host", "localhost:41837"}});
    api->handle(info);
    EXPECT_EQ(json::parse(info.response)["domain"], "localhost:41837");

    // No key or token, as E2B's public port URLs; the method, path and query kept.
    MemoryExchange get("POST", "/a b/c?x=1&y=%20", "body",
                       {{"Host", "8000-" + id + ".localhost:41837"}});
    api->handle(get);
    EXPECT_EQ(get.status, 307) << get.response;
    EXPECT_NE(get.response.find("http://127.0.0.1:48000/a%20b/c?x=1&y=%20"), std::string::npos)
        << get.response;

    MemoryExchange gone("GET", "/", "", {{"Host", "8000-nope.localhost:41837"}});
    api->handle(gone);
    EXPECT_EQ(gone.status, 502);
    const json why = json::parse(gone.response);
    EXPECT_EQ(why["message"], "The sandbox was not found");
    EXPECT_EQ(why["sandboxId"], "nope");
    EXPECT_EQ(why["code"], 502);
}

} // namespace
