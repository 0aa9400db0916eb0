// Saving edited rules into a user's policy document: their comments and formatting survive, only
// what changed is rewritten, and the result reads back as exactly the edited policy.
#include "policy/PolicyEdit.h"

#include "TestSupport.h"
#include "policy/PolicyJson.h"

#include <sys/stat.h>

namespace fs = std::filesystem;

namespace {

sb::Policy parsed(const std::string& text)
{
    auto p = sb::parsePolicy(text, "my.json");
    EXPECT_TRUE(p) << p.error().message;
    return p ? *p : sb::Policy{};
}

std::string rewritten(const std::string& text, const sb::Policy& policy)
{
    auto out = sb::rewritePolicyRules(text, "my.json", policy);
    EXPECT_TRUE(out) << out.error().message;
    if (!out) return {};
    // Whatever the edit, the result reads back as the edited policy.
    auto back = sb::parsePolicy(*out, "my.json");
    EXPECT_TRUE(back) << back.error().message << "\n" << *out;
    if (back) {
        EXPECT_EQ(sb::policyToJson(*back)["network"], sb::policyToJson(policy)["network"]) << *out;
        EXPECT_EQ(sb::policyToJson(*back)["commands"], sb::policyToJson(policy)["commands"])
            << *out;
    }
    return *out;
}

sb::CommandRule cmd(sb::RuleAction action, std::string match, std::string comment = {})
{
    return sb::CommandRule{action, std::move(match), std::move(comment)};
}

sb::NetworkRule net(sb::RuleAction action, std::string host, std::vector<std::uint16_t> ports = {})
{
    return sb::NetworkRule{action, std::move(host), std::move(ports), {}};
}

using sb::RuleAction;

void replaceOnce(std::string& text, const std::string& from, const std::string& to)
{
    const std::size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
}

const std::string kDocument = R"(// My policy: header comment.
{
  "version": 1,   // always 1

  /* The network. */
  "network": {
    "mode": "filtered",
    "default": "ask", // ask about the rest
    "rules": [
      // GitHub, for the agent's pushes
      { "action": "allow", "host": "*.github.com", "ports": [443] },
      { "action": "deny",  "host": "10.0.0.0/8" } // the office
    ]
  },

  "commands": {
    "default": "allow",
    "rules": [
      { "action": "ask",  "match": "git push *" }, // review pushes
      // never this
      { "action": "deny", "match": "rm -rf /*" }
    ]
  },

  "limits": { "memory_mb": 2048 } // small
}
// trailing comment
)";

TEST(PolicyEdit, NothingChangedIsTheSameDocumentByteForByte)
{
    EXPECT_EQ(rewritten(kDocument, parsed(kDocument)), kDocument);
}

TEST(PolicyEdit, ChangedScalarsAreReplacedWhereTheyStandWithTheirComments)
{
    sb::Policy p = parsed(kDocument);
    p.network.defaultAction = RuleAction::Deny;
    p.commands.defaultAction = RuleAction::Ask;
    p.network.mode = sb::NetworkMode::None;
    std::string expected = kDocument;
    replaceOnce(expected, R"("default": "ask", // ask)", R"("default": "deny", // ask)");
    replaceOnce(expected, R"("default": "allow")", R"("default": "ask")");
    replaceOnce(expected, R"("mode": "filtered")", R"("mode": "none")");
    EXPECT_EQ(rewritten(kDocument, p), expected);
}

TEST(PolicyEdit, AnAddedRuleTakesTheDocumentsStyleAndTheOthersKeepTheirComments)
{
    sb::Policy p = parsed(kDocument);
    p.commands.rules.push_back(cmd(RuleAction::Deny, "curl *", "no downloads"));
    p.network.rules.insert(p.network.rules.begin(), net(RuleAction::Allow, "pypi.org", {443, 80}));
    std::string expected = kDocument;
    replaceOnce(expected, "      { \"action\": \"deny\", \"match\": \"rm -rf /*\" }\n",
                "      { \"action\": \"deny\", \"match\": \"rm -rf /*\" },\n"
                "      { \"action\": \"deny\", \"match\": \"curl *\", \"comment\": \"no "
                "downloads\" }\n");
    replaceOnce(expected, "      // GitHub",
                "      { \"action\": \"allow\", \"host\": \"pypi.org\", \"ports\": [443, 80] "
                "},\n      // GitHub");
    EXPECT_EQ(rewritten(kDocument, p), expected);
}

TEST(PolicyEdit, ReorderedRulesMoveWithTheirCommentsAndCommasFollowThePosition)
{
    sb::Policy p = parsed(kDocument);
    std::swap(p.commands.rules[0], p.commands.rules[1]);
    std::swap(p.network.rules[0], p.network.rules[1]);
    const std::string out = rewritten(kDocument, p);
    EXPECT_NE(out.find("    \"rules\": [\n"
                       "      { \"action\": \"deny\",  \"host\": \"10.0.0.0/8\" }, // the office\n"
                       "      // GitHub, for the agent's pushes\n"
                       "      { \"action\": \"allow\", \"host\": \"*.github.com\", \"ports\": "
                       "[443] }\n"
                       "    ]\n"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("    \"rules\": [\n"
                       "      // never this\n"
                       "      { \"action\": \"deny\", \"match\": \"rm -rf /*\" },\n"
                       "      { \"action\": \"ask\",  \"match\": \"git push *\" } // review "
                       "pushes\n"
                       "    ]\n"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("// My policy: header comment.\n{\n  \"version\": 1,   // always 1\n"),
              std::string::npos);
    EXPECT_NE(out.find("\"limits\": { \"memory_mb\": 2048 } // small\n}\n// trailing comment\n"),
              std::string::npos);
}

TEST(PolicyEdit, ADeletedRuleTakesItsCommentsWithItAndTheRestStays)
{
    sb::Policy p = parsed(kDocument);
    p.commands.rules.erase(p.commands.rules.begin() + 1); // "rm -rf /*" and "// never this"
    p.network.rules.erase(p.network.rules.begin());       // GitHub and its comment
    const std::string out = rewritten(kDocument, p);
    EXPECT_EQ(out.find("never this"), std::string::npos) << out;
    EXPECT_EQ(out.find("GitHub"), std::string::npos) << out;
    EXPECT_NE(out.find("      { \"action\": \"ask\",  \"match\": \"git push *\" } // review "
                       "pushes\n    ]"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("      { \"action\": \"deny\",  \"host\": \"10.0.0.0/8\" } // the office\n"),
              std::string::npos)
        << out;
}

TEST(PolicyEdit, AllRulesDeletedLeaveAnEmptyArrayAndRulesCanBeAddedToOne)
{
    sb::Policy p = parsed(kDocument);
    p.commands.rules.clear();
    const std::string empty = rewritten(kDocument, p);
    EXPECT_NE(empty.find("\"commands\": {\n    \"default\": \"allow\",\n    \"rules\": []\n  },"),
              std::string::npos)
        << empty;

    p.commands.rules = {cmd(RuleAction::Ask, "npm publish *"), cmd(RuleAction::Deny, "sudo *")};
    const std::string refilled = rewritten(empty, p);
    EXPECT_NE(refilled.find("    \"rules\": [\n"
                            "      { \"action\": \"ask\", \"match\": \"npm publish *\" },\n"
                            "      { \"action\": \"deny\", \"match\": \"sudo *\" }\n"
                            "    ]\n  },"),
              std::string::npos)
        << refilled;
}

TEST(PolicyEdit, MissingSectionsAndKeysAreInsertedBesideTheirSiblings)
{
    const std::string text = "{\n"
                             "    \"version\": 1, // the only one\n"
                             "    \"network\": {\n"
                             "        // the mode only\n"
                             "        \"mode\": \"filtered\"\n"
                             "    },\n"
                             "    \"env\": { \"pass\": [\"A\"] }\n"
                             "}\n";
    sb::Policy p = parsed(text);
    p.network.rules = {net(RuleAction::Allow, "example.com")};
    p.commands.defaultAction = RuleAction::Ask;
    p.commands.rules = {cmd(RuleAction::Deny, "curl *")};
    EXPECT_EQ(rewritten(text, p),
              "{\n"
              "    \"version\": 1, // the only one\n"
              "    \"network\": {\n"
              "        // the mode only\n"
              "        \"mode\": \"filtered\",\n"
              "        \"rules\": [\n"
              "            { \"action\": \"allow\", \"host\": \"example.com\" }\n"
              "        ]\n"
              "    },\n"
              "    \"commands\": {\n"
              "        \"default\": \"ask\",\n"
              "        \"rules\": [\n"
              "            { \"action\": \"deny\", \"match\": \"curl *\" }\n"
              "        ]\n"
              "    },\n"
              "    \"env\": { \"pass\": [\"A\"] }\n"
              "}\n");
}

TEST(PolicyEdit, AKeyMissingBeforeTheFirstMemberGoesAboveThatMembersComments)
{
    const std::string text = "{\n  \"version\": 1,\n  \"commands\": {\n    // mine\n"
                             "    \"rules\": []\n  }\n}\n";
    sb::Policy p = parsed(text);
    p.commands.defaultAction = RuleAction::Deny;
    EXPECT_EQ(rewritten(text, p), "{\n  \"version\": 1,\n  \"commands\": {\n"
                                  "    \"default\": \"deny\",\n    // mine\n"
                                  "    \"rules\": []\n  }\n}\n");
}

TEST(PolicyEdit, AOneLineDocumentStaysOnOneLine)
{
    const std::string text =
        R"({"version": 1, "commands": {"default": "allow", "rules": [{"action": "ask", "match": "git push *"}]}})";
    sb::Policy p = parsed(text);
    p.commands.rules.push_back(cmd(RuleAction::Deny, "curl *"));
    p.network.defaultAction = RuleAction::Deny;
    EXPECT_EQ(
        rewritten(text, p),
        R"({"version": 1, "network": {"default": "deny"}, "commands": {"default": "allow", "rules": [{"action": "ask", "match": "git push *"}, {"action": "deny", "match": "curl *"}]}})");
}

TEST(PolicyEdit, PrettyPrintedRulesGetPrettyPrintedCompanions)
{
    const std::string text = "{\n"
                             "  \"version\": 1,\n"
                             "  \"commands\": {\n"
                             "    \"rules\": [\n"
                             "      {\n"
                             "        \"action\": \"ask\",\n"
                             "        \"match\": \"git push *\"\n"
                             "      }\n"
                             "    ]\n"
                             "  }\n"
                             "}\n";
    sb::Policy p = parsed(text);
    p.commands.rules.push_back(cmd(RuleAction::Deny, "curl *"));
    EXPECT_EQ(rewritten(text, p), "{\n"
                                  "  \"version\": 1,\n"
                                  "  \"commands\": {\n"
                                  "    \"rules\": [\n"
                                  "      {\n"
                                  "        \"action\": \"ask\",\n"
                                  "        \"match\": \"git push *\"\n"
                                  "      },\n"
                                  "      {\n"
                                  "        \"action\": \"deny\",\n"
                                  "        \"match\": \"curl *\"\n"
                                  "      }\n"
                                  "    ]\n"
                                  "  }\n"
                                  "}\n");
}

TEST(PolicyEdit, LineEndingsFollowTheDocument)
{
    std::string lf = rewritten(kDocument, [] {
        sb::Policy p = parsed(kDocument);
        p.commands.rules.push_back(cmd(RuleAction::Deny, "curl *"));
        p.approvals.timeoutSeconds = 30;
        return p;
    }());
    EXPECT_EQ(lf.find('\r'), std::string::npos) << "no CR in a document without one";

    std::string crlf;
    for (char c : kDocument)
        crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    sb::Policy p = parsed(crlf);
    p.commands.rules.push_back(cmd(RuleAction::Deny, "curl *"));
    p.approvals.timeoutSeconds = 30;
    const std::string out = rewritten(crlf, p);
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] == '\n') {
            ASSERT_TRUE(i > 0 && out[i - 1] == '\r') << "a bare LF at " << i;
        }
    }
    // A missing section goes after its predecessor in the documented order.
    EXPECT_NE(out.find("    ]\r\n  },\r\n"
                       "  \"approvals\": {\r\n    \"timeout_seconds\": 30\r\n  },\r\n"
                       "\r\n  \"limits\""),
              std::string::npos)
        << out;
}

TEST(PolicyEdit, ApprovalsAreRewrittenInPlace)
{
    const std::string text = "{\n  \"version\": 1,\n"
                             "  \"approvals\": { \"timeout_seconds\": 120, \"on_timeout\": "
                             "\"deny\" } // two minutes\n}\n";
    sb::Policy p = parsed(text);
    p.approvals.onTimeout = RuleAction::Allow;
    EXPECT_EQ(rewritten(text, p), "{\n  \"version\": 1,\n"
                                  "  \"approvals\": { \"timeout_seconds\": 120, \"on_timeout\": "
                                  "\"allow\" } // two minutes\n}\n");
}

TEST(PolicyEdit, RulesSharingALineAreRewrittenAsAWhole)
{
    const std::string text = "{\n  \"version\": 1,\n  \"commands\": { \"rules\": [\n"
                             "    { \"action\": \"ask\", \"match\": \"a *\" }, { \"action\": "
                             "\"ask\", \"match\": \"b *\" }\n  ] }\n}\n";
    sb::Policy p = parsed(text);
    std::swap(p.commands.rules[0], p.commands.rules[1]);
    EXPECT_EQ(rewritten(text, p), "{\n  \"version\": 1,\n  \"commands\": { \"rules\": [\n"
                                  "    { \"action\": \"ask\", \"match\": \"b *\" },\n"
                                  "    { \"action\": \"ask\", \"match\": \"a *\" }\n  ] }\n}\n");
}

TEST(PolicyEdit, EveryShippedPresetTakesAnEditAndKeepsItsComments)
{
    for (const std::string& name : sb::presetNames()) {
        const std::string text = sbtest::readFile(sb::presetDirectory() / (name + ".json"));
        sb::Policy p = parsed(text);
        p.commands.rules.push_back(cmd(RuleAction::Deny, "curl *"));
        p.network.rules.push_back(net(RuleAction::Deny, "10.0.0.0/8"));
        const std::string out = rewritten(text, p);
        // Every comment line of the preset is still there.
        std::size_t at = 0;
        for (std::size_t c = text.find("//"); c != std::string::npos; c = text.find("//", c + 2)) {
            const std::string line = text.substr(c, text.find('\n', c) - c);
            at = out.find(line, at);
            ASSERT_NE(at, std::string::npos) << name << " lost: " << line << "\n" << out;
        }
    }
}

TEST(PolicyEdit, AnInvalidDocumentIsRefusedWithItsPosition)
{
    auto out =
        sb::rewritePolicyRules("{\n  \"version\": 1,\n  \"network\": { \"mode\": \"fltered\" }\n}",
                               "my.json", sb::Policy{});
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().code, sb::ErrorCode::InvalidInput);
    EXPECT_EQ(out.error().message.rfind("my.json:3:", 0), 0u) << out.error().message;
    EXPECT_NE(out.error().message.find("at /network/mode: unknown value 'fltered'"),
              std::string::npos)
        << out.error().message;

    auto broken = sb::rewritePolicyRules("{\"version\": 1,,}", "my.json", sb::Policy{});
    ASSERT_FALSE(broken);
    EXPECT_EQ(broken.error().message.rfind("my.json:1:", 0), 0u) << broken.error().message;
    EXPECT_NE(broken.error().message.find("invalid JSON"), std::string::npos);
}

TEST(PolicyEdit, InvalidNewRulesAreRefusedAndNamed)
{
    sb::Policy p = parsed(kDocument);
    p.commands.rules.push_back(cmd(RuleAction::Deny, "curl | sh"));
    auto out = sb::rewritePolicyRules(kDocument, "my.json", p);
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().code, sb::ErrorCode::InvalidInput);
    EXPECT_NE(out.error().message.find("the edited policy:"), std::string::npos)
        << out.error().message;
    EXPECT_NE(out.error().message.find("/commands/rules/2/match"), std::string::npos)
        << out.error().message;
}

TEST(PolicyEdit, SaveWritesAValidPolicyAndKeepsTheFilesMode)
{
    sbtest::TempDir dir;
    const fs::path file = dir / "my.json";
    sbtest::writeFile(file, kDocument);
    ASSERT_EQ(::chmod(file.c_str(), 0640), 0);
    sb::Policy p = parsed(kDocument);
    p.commands.defaultAction = RuleAction::Deny;
    auto text = sb::rewritePolicyRules(kDocument, file.string(), p);
    ASSERT_TRUE(text) << text.error().message;
    ASSERT_FALSE(sb::savePolicyFile(file, *text));
    EXPECT_EQ(sbtest::readFile(file), *text);
    struct stat st {};
    ASSERT_EQ(::stat(file.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1)
        << "no temporary file left behind";
}

TEST(PolicyEdit, SaveRefusesAnInvalidPolicyAndLeavesTheOldFileIntact)
{
    sbtest::TempDir dir;
    const fs::path file = dir / "my.json";
    sbtest::writeFile(file, kDocument);
    auto e =
        sb::savePolicyFile(file, "{\"version\": 1, \"commands\": {\"default\": \"sometimes\"}}");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->code, sb::ErrorCode::InvalidInput);
    EXPECT_EQ(e->message.rfind(file.string() + ":1:", 0), 0u) << e->message;
    EXPECT_NE(e->message.find("at /commands/default: unknown value 'sometimes'"), std::string::npos)
        << e->message;
    EXPECT_EQ(sbtest::readFile(file), kDocument);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(PolicyEdit, SaveThroughASymlinkReplacesTheTargetAndKeepsTheLink)
{
    sbtest::TempDir dir;
    fs::create_directory(dir / "real");
    const fs::path target = dir / "real" / "policy.json";
    sbtest::writeFile(target, "{\"version\": 1}");
    fs::create_symlink(target, dir / "link.json");
    ASSERT_FALSE(sb::savePolicyFile(dir / "link.json", "{\"version\": 1, \"env\": {}}"));
    EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
    EXPECT_EQ(sbtest::readFile(target), "{\"version\": 1, \"env\": {}}");
}

TEST(PolicyEdit, SaveCreatesAFileThatDoesNotExistYet)
{
    // Save As: a preset or a read-only document saved under a new name.
    sbtest::TempDir dir;
    const fs::path file = dir / "new.json";
    ASSERT_FALSE(sb::savePolicyFile(file, kDocument));
    EXPECT_EQ(sbtest::readFile(file), kDocument);
}

TEST(PolicyEdit, WriteLearnedRulesReplacesTheFileAndRefusesInvalidRules)
{
    sbtest::TempDir dir;
    const fs::path file = dir / "sub" / "p.learned.json";
    sb::LearnedRules rules;
    rules.commands = {cmd(RuleAction::Allow, "git *")};
    rules.network = {net(RuleAction::Deny, "example.com", {443})};
    ASSERT_FALSE(sb::writeLearnedRules(file, rules));
    auto back = sb::loadLearnedRules(file);
    ASSERT_TRUE(back) << back.error().message;
    ASSERT_EQ(back->commands.size(), 1u);
    EXPECT_EQ(back->commands[0].match, "git *");
    ASSERT_EQ(back->network.size(), 1u);
    EXPECT_EQ(back->network[0].ports, std::vector<std::uint16_t>{443});

    const std::string before = sbtest::readFile(file);
    rules.commands.push_back(cmd(RuleAction::Allow, "a | b"));
    auto e = sb::writeLearnedRules(file, rules);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->code, sb::ErrorCode::InvalidInput);
    EXPECT_EQ(sbtest::readFile(file), before);

    rules.commands.clear();
    rules.network.clear();
    ASSERT_FALSE(sb::writeLearnedRules(file, rules));
    back = sb::loadLearnedRules(file);
    ASSERT_TRUE(back);
    EXPECT_TRUE(back->commands.empty());
    EXPECT_TRUE(back->network.empty());
}

} // namespace

// Issue 34: a rule that names a program keeps it; a policy that lost it (what the window's
// editor, which does not show it yet, sends back) is refused rather than saved wider.
TEST(PolicyEdit, ARuleNamingAProgramKeepsItOrTheSaveIsRefused)
{
    const std::string doc = "{\n  \"version\": 1,\n  \"network\": {\n    \"rules\": [\n"
                            "      // ssh only\n"
                            "      {\"action\": \"allow\", \"host\": \"github.com\", \"ports\": "
                            "[22], \"program\": \"/usr/bin/ssh\"},\n"
                            "      {\"action\": \"deny\", \"host\": \"github.com\"}\n"
                            "    ]\n  }\n}\n";
    sb::Policy p = parsed(doc);
    p.network.rules.push_back({sb::RuleAction::Allow, "example.org", {443}, ""});
    sb::NetworkRule git{sb::RuleAction::Allow, "*.github.com", {443}, ""};
    git.command = "git *";
    p.network.rules.push_back(git);
    const std::string out = rewritten(doc, p);
    EXPECT_NE(out.find("      // ssh only\n      {\"action\": \"allow\", \"host\": \"github.com\", "
                       "\"ports\": [22], \"program\": \"/usr/bin/ssh\"},"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("\"command\": \"git *\""), std::string::npos) << out;

    sb::Policy lost = parsed(doc);
    lost.network.rules[0].program.clear();
    lost.commands.defaultAction = sb::RuleAction::Ask;
    EXPECT_FALSE(sb::rewritePolicyRules(doc, "my.json", lost));
}
