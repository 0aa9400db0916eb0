// A policy learned from a day of work (issue 39): a session run in observe mode asks nobody,
// allows what its policy would ask and records it as such (deny rules still deny); `policy
// suggest` turns its recording into a policy; the same work under that policy asks nothing; a
// candidate run as a shadow is compared with the enforced policy, never enforced.
// Inside test-network (tests/probe), so its connections reach a server of the test's own.
#include "IntegrationSupport.h"
#include "support/TestNetwork.h"

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;

namespace {

TEST(LearnedPolicy, ObserveThenSuggestThenTheSameWorkAsksNothing)
{
    sbit::Sandbench sb;
    const sbit::TestNetwork net;
    const std::string p = std::to_string(net.port);
    // Everything asks; one thing is denied. Unanswered asks are denied at once.
    const fs::path base = sb.writePolicy(R"({"version": 1,
        "network": {"mode": "filtered", "default": "ask"},
        "commands": {"default": "allow", "rules": [
            {"action": "deny", "match": "rm -rf /*"},
            {"action": "ask", "match": "git *"},
            {"action": "ask", "match": "ls *"},
            {"action": "ask", "match": "python3 *"}]},
        "approvals": {"timeout_seconds": 1, "on_timeout": "deny"}})");
    const std::string work = R"(
git init -q . && git status --short >/dev/null && echo git-ok
ls -la >/dev/null && echo ls-ok
python3 -c '
import socket
s = socket.create_connection(("api.test.example", )" +
                             p + R"(), timeout=10)
s.sendall(b"GET / HTTP/1.0\r\n\r\n")
print("fetched:", s.makefile("rb").read().split(b"\r\n\r\n", 1)[-1].decode().strip())
'
rm -rf /usr 2>/dev/null || echo rm-refused
)";
    auto day = [&](const std::string& id, const fs::path& policy, bool observe,
                   std::vector<std::string> more = {}) {
        std::vector<std::string> options;
        if (observe) options.emplace_back("--observe");
        options.insert(options.end(), more.begin(), more.end());
        return net.session(sb, id, policy, work, options);
    };
    auto summary = [&](const std::string& id) {
        return nlohmann::json::parse(sb.cli({"show", id, "--json"}).out, nullptr, false);
    };

    auto observed = day("observed", base, true);
    ASSERT_EQ(observed.status, 0) << dump(observed);
    for (const char* line : {"git-ok", "ls-ok", "fetched: hello from", "rm-refused"})
        EXPECT_TRUE(contains(observed.out, line)) << line << "\n" << dump(observed);
    const auto first = summary("observed");
    EXPECT_TRUE(first.value("observed", false)) << first.dump();
    EXPECT_EQ(first.value("would_ask", 0), 5) << "git twice, ls, python3, the connection\n"
                                              << first.dump();
    EXPECT_EQ(first["decisions"].value("prompts", -1), 0) << first.dump();

    const fs::path suggested = sb.home() / "suggested.json";
    auto suggest = sb.cli(
        {"policy", "suggest", "observed", "--policy", base.string(), "-o", suggested.string()});
    ASSERT_EQ(suggest.status, 0) << dump(suggest);
    const std::string text = sbtest::readFile(suggested);
    EXPECT_TRUE(contains(text, R"({"action": "allow", "match": "git init *"})")) << text;
    EXPECT_TRUE(contains(text, R"("host": "*.test.example", "ports": [)" + p + "]")) << text;
    EXPECT_TRUE(contains(text, "// proposed: ")) << text;
    EXPECT_TRUE(contains(text, R"({"action": "deny", "match": "rm -rf /*"})")) << text;

    auto again = day("again", suggested, false);
    ASSERT_EQ(again.status, 0) << dump(again);
    for (const char* line : {"git-ok", "ls-ok", "fetched: hello from", "rm-refused"})
        EXPECT_TRUE(contains(again.out, line)) << line << "\n" << dump(again);
    const auto second = summary("again");
    EXPECT_EQ(second["decisions"].value("prompts", -1), 0) << second.dump();
    EXPECT_FALSE(second.value("observed", true)) << second.dump();

    // A candidate evaluated beside the enforced policy, never enforced: it would allow all that
    // was asked, deny ls, and allow the rm the base denies.
    const fs::path candidate = sb.writePolicy(R"({"version": 1,
        "network": {"mode": "filtered", "default": "allow"},
        "commands": {"default": "allow", "rules": [{"action": "deny", "match": "ls *"}]}})");
    auto shadowed = day("shadowed", base, true, {"--shadow", candidate.string()});
    ASSERT_EQ(shadowed.status, 0) << dump(shadowed);
    EXPECT_TRUE(contains(shadowed.out, "ls-ok")) << "the candidate is not enforced\n"
                                                 << dump(shadowed);
    EXPECT_TRUE(contains(shadowed.out, "rm-refused")) << dump(shadowed);
    auto compare = sb.cli({"policy", "compare", "shadowed", "--json"});
    ASSERT_EQ(compare.status, 0) << dump(compare);
    const auto c = nlohmann::json::parse(compare.out, nullptr, false);
    EXPECT_EQ(c.value("current_asks", -1), 5) << c.dump(2);
    EXPECT_EQ(c.value("candidate_asks", -1), 0) << c.dump(2);
    EXPECT_EQ(c["allowed_where_denied"].size(), 1u) << c.dump(2);
    EXPECT_EQ(c["allowed_where_asked"].size(), 4u) << c.dump(2);
    EXPECT_EQ(c["other_differences"].size(), 1u) << "ls: ask → deny\n" << c.dump(2);
    EXPECT_TRUE(contains(c.value("summary", ""), "5 time(s) fewer (0 instead of 5")) << c.dump(2);
    EXPECT_TRUE(contains(c.value("summary", ""), "allowed 1 thing the current policy denied"))
        << c.dump(2);
    auto without = sb.cli({"policy", "compare", "observed"});
    EXPECT_NE(without.status, 0);
    EXPECT_TRUE(contains(without.err, "--shadow")) << dump(without);
}

} // namespace
