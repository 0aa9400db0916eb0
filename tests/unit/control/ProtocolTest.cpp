#include "control/Protocol.h"

#include "TestSupport.h"

using namespace sb::proto;
using nlohmann::json;

namespace {

std::vector<Message> decodeAll(FrameDecoder& d)
{
    std::vector<Message> out;
    Message m;
    for (;;) {
        auto got = d.next(m);
        EXPECT_TRUE(got) << got.error().message;
        if (!got || !*got) return out;
        out.push_back(m);
    }
}

std::string lengthPrefix(std::uint32_t length, std::uint8_t type)
{
    std::string s(5, '\0');
    for (int i = 0; i < 4; ++i)
        s[i] = static_cast<char>((length >> (8 * i)) & 0xff);
    s[4] = static_cast<char>(type);
    return s;
}

} // namespace

TEST(Protocol, FrameLayoutIsLittleEndianLengthThenType)
{
    std::string frame = encodeJson(MsgType::Hello, {{"version", 1}});
    std::string body = R"({"version":1})";
    ASSERT_EQ(frame.size(), 5 + body.size());
    EXPECT_EQ(frame.substr(0, 5), lengthPrefix(static_cast<std::uint32_t>(body.size() + 1), 1));
    EXPECT_EQ(frame.substr(5), body);

    std::string out = encodeBytes(MsgType::Output, 0x0102030405060708ull, "ab");
    ASSERT_EQ(out.size(), 13u + 2);
    EXPECT_EQ(out.substr(0, 5), lengthPrefix(11, 5));
    EXPECT_EQ(out.substr(5, 8), std::string("\x08\x07\x06\x05\x04\x03\x02\x01", 8));
    EXPECT_EQ(out.substr(13), "ab");
}

TEST(Protocol, RoundTripsBinaryOutputAndJsonByteByByte)
{
    std::string binary;
    for (int i = 0; i < 256; ++i)
        binary.push_back(static_cast<char>(i)); // NULs, escapes, invalid UTF-8: all pass
    std::string stream = encodeBytes(MsgType::Output, 77, binary) +
                         encodeJson(MsgType::Resize, {{"rows", 50}, {"cols", 132}}) +
                         encodeBytes(MsgType::Input, 3, "") + encodeJson(MsgType::Stop, {});
    FrameDecoder d;
    std::vector<Message> got;
    for (char ch : stream) { // the worst split a socket can produce
        d.feed({&ch, 1});
        for (auto& m : decodeAll(d))
            got.push_back(m);
    }
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got[0].type, MsgType::Output);
    EXPECT_EQ(got[0].seq, 77u);
    EXPECT_EQ(got[0].bytes, binary);
    EXPECT_EQ(got[1].type, MsgType::Resize);
    EXPECT_EQ(got[1].body["cols"], 132);
    EXPECT_EQ(got[2].type, MsgType::Input);
    EXPECT_EQ(got[2].bytes, "");
    EXPECT_EQ(got[3].type, MsgType::Stop);
    EXPECT_EQ(d.buffered(), 0u);
}

TEST(Protocol, OversizeFrameIsRejectedBeforeItsPayloadArrives)
{
    FrameDecoder d;
    d.feed(lengthPrefix(0xfffffff0u, 5));
    Message m;
    auto got = d.next(m);
    ASSERT_FALSE(got);
    EXPECT_NE(got.error().message.find("exceeds the limit"), std::string::npos);

    FrameDecoder small(100);
    small.feed(encodeBytes(MsgType::Output, 0, std::string(100, 'x')));
    EXPECT_FALSE(small.next(m)) << "the limit counts type byte and payload";
}

TEST(Protocol, MalformedFramesAreErrorsNotCrashes)
{
    Message m;
    auto rejects = [&](const std::string& bytes, const std::string& why) {
        FrameDecoder d;
        d.feed(bytes);
        auto got = d.next(m);
        ASSERT_FALSE(got) << "accepted: " << why;
        EXPECT_FALSE(got.error().message.empty());
    };
    rejects(lengthPrefix(0, 1), "zero length");
    rejects(lengthPrefix(1, 0), "type 0");
    rejects(lengthPrefix(1, 200), "unknown type");
    rejects(lengthPrefix(4, 5) + "abc", "output without a full sequence number");
    rejects(lengthPrefix(4, 1) + "{x}", "bad JSON");
    rejects(lengthPrefix(4, 1) + "[1]", "JSON that is not an object");

    FrameDecoder truncated;
    truncated.feed(encodeJson(MsgType::Hello, {{"version", 1}}).substr(0, 9));
    auto got = truncated.next(m);
    ASSERT_TRUE(got);
    EXPECT_FALSE(*got) << "half a frame waits for the rest";
}

TEST(Protocol, ApprovalTypesRoundTripThroughJson)
{
    sb::ApprovalRequest r;
    r.id = 3;
    r.kind = sb::ApprovalKind::Network;
    r.host = "example.com";
    r.port = 443;
    r.protocol = "connect";
    r.rule = "default";
    r.deadlineUnixMs = 123;
    auto back = approvalRequestFromJson(json::parse(toJson(r).dump()));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->kind, sb::ApprovalKind::Network);
    EXPECT_EQ(back->host, "example.com");
    EXPECT_EQ(back->port, 443);
    EXPECT_EQ(back->deadlineUnixMs, 123);
    EXPECT_EQ(describeRequest(*back), "example.com:443 (connect)");

    sb::ApprovalOutcome o;
    o.id = 3;
    o.allow = true;
    o.answer = {true, sb::ApprovalScope::Domain, sb::ApprovalDuration::Always, "gui"};
    o.latencyMs = 900;
    o.persistError = "policy folder is read-only";
    auto ob = approvalOutcomeFromJson(toJson(o));
    ASSERT_TRUE(ob);
    EXPECT_EQ(ob->answer.scope, sb::ApprovalScope::Domain);
    EXPECT_EQ(ob->answer.duration, sb::ApprovalDuration::Always);
    EXPECT_EQ(ob->answer.answeredBy, "gui");
    EXPECT_EQ(ob->latencyMs, 900);
    EXPECT_EQ(ob->persistError, "policy folder is read-only");
    EXPECT_FALSE(ob->answer.programOnly);
    EXPECT_FALSE(toJson(o.answer).contains("program_only")) << "absent unless set";
    o.answer.programOnly = true;
    auto only = approvalOutcomeFromJson(toJson(o));
    ASSERT_TRUE(only);
    EXPECT_TRUE(only->answer.programOnly);
    EXPECT_FALSE(only->answer.samePort);
    EXPECT_FALSE(toJson(o.answer).contains("same_port")) << "absent unless set";
    o.answer.samePort = true; // the generalised "always" answer: the domain on this port
    auto samePort = approvalOutcomeFromJson(toJson(o));
    ASSERT_TRUE(samePort);
    EXPECT_TRUE(samePort->answer.samePort);

    auto bad = approvalAnswerFromJson({{"allow", true}, {"scope", "everything"}});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("unknown approval scope 'everything'"), std::string::npos);
    EXPECT_FALSE(approvalAnswerFromJson({{"allow", "yes"}, {"scope", "exact"}}))
        << "a wrong JSON type is an error, not an exception";
    EXPECT_FALSE(approvalRequestFromJson({{"kind", "command"}})) << "no id";
}

TEST(Protocol, ScopesBelongToTheirKind)
{
    EXPECT_TRUE(scopeFitsKind(sb::ApprovalScope::Subcommand, sb::ApprovalKind::Command));
    EXPECT_FALSE(scopeFitsKind(sb::ApprovalScope::Host, sb::ApprovalKind::Command));
    EXPECT_TRUE(scopeFitsKind(sb::ApprovalScope::Domain, sb::ApprovalKind::Network));
    EXPECT_FALSE(scopeFitsKind(sb::ApprovalScope::ExactCommand, sb::ApprovalKind::Network));
    for (const char* name : {"exact", "subcommand", "program", "hostport", "host", "domain"})
        EXPECT_STREQ(approvalScopeName(*parseApprovalScope(name)), name);
}

TEST(Protocol, PeersAreTheOwnerOrRoot)
{
    EXPECT_TRUE(peerAllowed(1000, 1000));
    EXPECT_TRUE(peerAllowed(0, 1000)) << "root may attach to a user's session (documented)";
    EXPECT_FALSE(peerAllowed(1001, 1000));
    EXPECT_FALSE(peerAllowed(65534, 0)) << "a root supervisor refuses nobody";
}

TEST(Protocol, SocketLivesInTheRuntimeDirectory)
{
    sbtest::IsolatedXdg xdg;
    EXPECT_EQ(socketPath("abc"), xdg.root() / "XDG_RUNTIME_DIR" / "sandbench" / "abc.sock");
}

TEST(Protocol, PolicyUpdateRoundTripsAndIsType18)
{
    EXPECT_EQ(static_cast<int>(MsgType::PolicyUpdate), 18);
    EXPECT_STREQ(typeName(MsgType::PolicyUpdate), "policy_update");
    EXPECT_TRUE(isKnownType(18));
    EXPECT_EQ(sb::proto::versionOf(MsgType::PolicyUpdate), 1u);

    PolicyUpdate update;
    update.policy = {{"version", 1}, {"commands", {{"default", "deny"}}}};
    update.file = "/home/u/my.json";
    FrameDecoder d;
    d.feed(encodeJson(MsgType::PolicyUpdate, toJson(update)));
    auto got = decodeAll(d);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].type, MsgType::PolicyUpdate);
    auto back = policyUpdateFromJson(got[0].body);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->policy, update.policy);
    EXPECT_EQ(back->file, "/home/u/my.json");

    // Without a file: the key is left out, and reads back empty.
    EXPECT_FALSE(toJson(PolicyUpdate{update.policy, ""}).contains("file"));
    EXPECT_EQ(policyUpdateFromJson({{"policy", update.policy}})->file, "");

    const PolicyUpdateResult result{{"commands", "network"}, {"network.mode"}};
    const json ack = toJson(result);
    EXPECT_EQ(ack["ref"], "policy_update");
    auto ackBack = policyUpdateResultFromJson(ack);
    ASSERT_TRUE(ackBack);
    EXPECT_EQ(ackBack->applied, result.applied);
    EXPECT_EQ(ackBack->deferred, result.deferred);
}

TEST(Protocol, PolicyUpdateWithoutAPolicyObjectOrWithARelativeFileIsRefused)
{
    auto none = policyUpdateFromJson(json::object());
    ASSERT_FALSE(none);
    EXPECT_NE(none.error().message.find("needs \"policy\""), std::string::npos);
    EXPECT_FALSE(policyUpdateFromJson({{"policy", "{\"version\": 1}"}}))
        << "a string, not a document";
    EXPECT_FALSE(policyUpdateFromJson({{"policy", json::array()}}));
    auto relative = policyUpdateFromJson({{"policy", {{"version", 1}}}, {"file", "my.json"}});
    ASSERT_FALSE(relative);
    EXPECT_NE(relative.error().message.find("absolute path"), std::string::npos);
    EXPECT_FALSE(policyUpdateFromJson({{"policy", {{"version", 1}}}, {"file", 3}}));
}

TEST(Protocol, SummaryCarriesThePolicyForEditorsAndOldSummariesStillRead)
{
    SessionSummary s;
    s.id = "sess";
    s.policyFile = "/home/u/my.json";
    s.learnedRulesFile = "/home/u/my.learned.json";
    s.effectivePolicy = {{"version", 1},
                         {"commands", {{"default", "ask"}, {"rules", json::array()}}}};
    s.learnedRules = {{"commands", json::array({{{"action", "allow"}, {"match", "git *"}}})},
                      {"network", json::array()}};
    auto back = sessionSummaryFromJson(toJson(s));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->policyFile, s.policyFile);
    EXPECT_EQ(back->policyPreset, "");
    EXPECT_EQ(back->learnedRulesFile, s.learnedRulesFile);
    EXPECT_EQ(back->effectivePolicy, s.effectivePolicy);
    EXPECT_EQ(back->learnedRules, s.learnedRules);

    // A supervisor from before policy updates sends none of it.
    auto old = sessionSummaryFromJson({{"id", "sess"}, {"command", {"agent"}}});
    ASSERT_TRUE(old) << old.error().message;
    EXPECT_TRUE(old->policyFile.empty());
    EXPECT_TRUE(old->policyPreset.empty());
    EXPECT_TRUE(old->effectivePolicy.is_null()) << "how a client tells it cannot update";
    EXPECT_EQ(old->learnedRules, json::object());
    EXPECT_FALSE(toJson(*old).contains("effective_policy"));
}

TEST(Protocol, VersionFiveAddsPausingARunningSession)
{
    EXPECT_EQ(static_cast<int>(MsgType::PauseRequest), 33);
    EXPECT_EQ(static_cast<int>(MsgType::PauseReply), 34);
    EXPECT_TRUE(isKnownType(34));
    EXPECT_STREQ(typeName(MsgType::PauseRequest), "pause_request");
    EXPECT_STREQ(typeName(MsgType::PauseReply), "pause_reply");
    EXPECT_EQ(sb::proto::versionOf(MsgType::PauseRequest), 5u);
    EXPECT_EQ(sb::proto::versionOf(MsgType::FileData), 4u);
}

TEST(Protocol, VersionSixAddsExecutionRecords)
{
    EXPECT_EQ(static_cast<int>(MsgType::ExecutionRecord), 35);
    EXPECT_EQ(static_cast<int>(MsgType::ExecutionRecorded), 36);
    EXPECT_TRUE(isKnownType(36));
    EXPECT_FALSE(isKnownType(37));
    EXPECT_STREQ(typeName(MsgType::ExecutionRecord), "execution_record");
    EXPECT_STREQ(typeName(MsgType::ExecutionRecorded), "execution_recorded");
    EXPECT_EQ(sb::proto::versionOf(MsgType::ExecutionRecord), 6u);
    EXPECT_EQ(sb::proto::versionOf(MsgType::PauseReply), 5u);
}

TEST(Protocol, VersionThreeAddsPortPreviewsAndRunningSnapshots)
{
    EXPECT_EQ(static_cast<int>(MsgType::PortRequest), 28);
    EXPECT_EQ(static_cast<int>(MsgType::PortReply), 29);
    EXPECT_EQ(static_cast<int>(MsgType::SnapshotRequest), 30);
    EXPECT_EQ(static_cast<int>(MsgType::SnapshotReply), 31);
    EXPECT_TRUE(isKnownType(31));
    EXPECT_STREQ(typeName(MsgType::SnapshotReply), "snapshot_reply");
    EXPECT_EQ(sb::proto::versionOf(MsgType::SnapshotRequest), 3u);
    EXPECT_STREQ(typeName(MsgType::PortRequest), "port_request");
    EXPECT_STREQ(typeName(MsgType::PortReply), "port_reply");
    EXPECT_EQ(sb::proto::versionOf(MsgType::PortRequest), 3u);
    EXPECT_EQ(sb::proto::versionOf(MsgType::FileReply), 2u);
}

TEST(Protocol, VersionFourCarriesFileContentsAsBytes)
{
    EXPECT_EQ(static_cast<int>(MsgType::FileData), 32);
    EXPECT_TRUE(isKnownType(32));
    EXPECT_STREQ(typeName(MsgType::FileData), "file_data");
    EXPECT_EQ(sb::proto::versionOf(MsgType::FileData), 4u);
    EXPECT_TRUE(carriesBytes(MsgType::FileData));
    // Any byte, a NUL too, as it is: no base64.
    const std::string content("a\0\xff\n", 4);
    FrameDecoder decoder;
    decoder.feed(encodeBytes(MsgType::FileData, 7, content));
    auto got = decodeAll(decoder);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].type, MsgType::FileData);
    EXPECT_EQ(got[0].seq, 7u);
    EXPECT_EQ(got[0].bytes, content);
}

TEST(Protocol, VersionTwoAddsProcessesAndFiles)
{
    EXPECT_EQ(static_cast<int>(MsgType::ExecStart), 19);
    EXPECT_EQ(static_cast<int>(MsgType::FileReply), 27);
    EXPECT_TRUE(isKnownType(27));
    EXPECT_STREQ(typeName(MsgType::ExecOutput), "exec_output");
    EXPECT_EQ(sb::proto::versionOf(MsgType::ExecStart), 2u);
    EXPECT_EQ(sb::proto::versionOf(MsgType::Hello), 1u);
    // exec_output is a bytes frame: the process in the seq, binary-safe.
    const std::string bytes("\0\xff raw\n", 8);
    std::string frame =
        sb::proto::encodeBytes(MsgType::ExecOutput, 7 << 8 | sb::proto::kExecStderr, bytes);
    sb::proto::FrameDecoder decoder;
    decoder.feed(frame);
    sb::proto::Message m;
    auto got = decoder.next(m);
    ASSERT_TRUE(got && *got);
    EXPECT_EQ(m.type, MsgType::ExecOutput);
    EXPECT_EQ(m.seq >> 8, 7u);
    EXPECT_EQ(m.seq & 0xff, sb::proto::kExecStderr);
    EXPECT_EQ(m.bytes, bytes);
}
