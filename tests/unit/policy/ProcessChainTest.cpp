// Who made a connection travels with it: in JSON (events, approval requests over the control
// socket) and in the words a card or a prompt shows.
#include "policy/ProcessChain.h"

#include "control/Protocol.h"

#include <gtest/gtest.h>

namespace {

sb::ProcessChain npmBuild()
{
    return {{12, "/usr/bin/node", {"node", "build.js"}},
            {9, "/usr/bin/node", {"npm", "run", "build"}},
            {2, "/usr/bin/bash", {"bash"}}};
}

} // namespace

TEST(ProcessChain, RoundTripsThroughJsonWithBytesThatAreNotUtf8)
{
    sb::ProcessChain chain = npmBuild();
    chain[0].argv.push_back("caf\xe9");
    const auto back = sb::processChainFromJson(sb::toJson(chain));
    ASSERT_EQ(back.size(), 3u);
    EXPECT_EQ(back[0].pid, 12);
    EXPECT_EQ(back[0].program, "/usr/bin/node");
    EXPECT_EQ(back[0].argv, chain[0].argv);
    EXPECT_EQ(back[2].argv, std::vector<std::string>{"bash"});
    EXPECT_TRUE(sb::processChainFromJson(nlohmann::json("not a list")).empty());
}

TEST(ProcessChain, DescribesTheProcessAndWhatStartedIt)
{
    EXPECT_EQ(sb::describeChain(npmBuild()),
              "node build.js (pid 12), started by npm run build (pid 9) < bash (pid 2)");
    EXPECT_EQ(sb::describeProcess({5, "/usr/bin/ssh", {}}), "/usr/bin/ssh (pid 5)");
}

TEST(ProcessChain, ANetworkApprovalRequestCarriesIt)
{
    sb::ApprovalRequest r;
    r.id = 3;
    r.kind = sb::ApprovalKind::Network;
    r.host = "api.example.com";
    r.port = 443;
    r.protocol = "tcp";
    r.process = npmBuild();
    auto back = sb::proto::approvalRequestFromJson(sb::proto::toJson(r));
    ASSERT_TRUE(back) << back.error().describe();
    ASSERT_EQ(back->process.size(), 3u);
    EXPECT_EQ(back->process[1].argv, (std::vector<std::string>{"npm", "run", "build"}));
    EXPECT_EQ(sb::proto::describeRequest(*back),
              "api.example.com:443 (tcp) by node build.js (pid 12), started by npm run build "
              "(pid 9) < bash (pid 2)");
}
