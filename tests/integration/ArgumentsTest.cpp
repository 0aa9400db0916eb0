// What the kernel accepts must run: bytes that are not UTF-8 in arguments, output, paths and
// file names, and argument lists up to the kernel's own limits (issue 26, items 2 and 3). Each
// runs a real session and reads its recording back.
#include "IntegrationSupport.h"
#include "base/Bytes.h"

#include <nlohmann/json.hpp>
#include <random>

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;

namespace {

class Arguments : public ::testing::Test {
  protected:
    sbit::Sandbench sb;

    nlohmann::json recordedCommands(const std::string& session)
    {
        auto exported = sb.cli({"export", session, "--format", "jsonl"});
        EXPECT_EQ(exported.status, 0) << dump(exported);
        nlohmann::json out = nlohmann::json::array();
        std::istringstream lines(exported.out);
        for (std::string line; std::getline(lines, line);) {
            auto j = nlohmann::json::parse(line, nullptr, false);
            EXPECT_FALSE(j.is_discarded()) << line;
            if (!j.is_discarded() && j.value("type", "") == "exec_request")
                out.push_back(j["payload"]);
        }
        return out;
    }
};

std::string randomBytes(std::mt19937& rng, std::size_t n)
{
    std::string s;
    for (std::size_t i = 0; i < n; ++i) {
        char c = static_cast<char>(rng() % 255 + 1); // any byte but NUL
        s.push_back(c == '/' ? '\xff' : c);
    }
    return s;
}

} // namespace

TEST_F(Arguments, BytesThatAreNotUtf8PassAndAreRecordedExactly)
{
    const std::string odd = "caf\xe9-\xff\xfe";
    auto r = sb.run("s", {"/bin/echo", odd});
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_EQ(r.out, odd + "\n");
    auto commands = recordedCommands("s");
    ASSERT_FALSE(commands.empty());
    const auto& echo = commands.back();
    ASSERT_TRUE(echo.contains("argv_base64")) << echo.dump();
    EXPECT_EQ(echo["argv_base64"][1], sb::base64(odd));
    auto ls = sb.cli({"sessions", "--json"});
    EXPECT_EQ(ls.status, 0) << dump(ls);
    auto show = sb.cli({"show", "s"});
    EXPECT_EQ(show.status, 0) << dump(show);
}

// A newline in a file's name keeps it on its line in `show`, quoted as `changes` quotes it.
TEST_F(Arguments, ShowQuotesANameWithANewline)
{
    auto r = sb.run("nl", {"bash", "-c", "echo x > $'two\\nlines.txt'"});
    ASSERT_EQ(r.status, 0) << dump(r);
    auto show = sb.cli({"show", "nl"});
    ASSERT_EQ(show.status, 0) << dump(show);
    EXPECT_TRUE(contains(show.out, "\n  A \"two\\nlines.txt\"\n")) << dump(show);
    auto changes = sb.cli({"changes", "nl"});
    EXPECT_TRUE(contains(changes.out, "\"two\\nlines.txt\"")) << dump(changes);
}

TEST_F(Arguments, RandomBytesInArgumentsFileNamesAndOutput)
{
    std::mt19937 rng(20261201);
    for (int round = 0; round < 4; ++round) {
        const std::string session = "r" + std::to_string(round);
        const std::string arg = randomBytes(rng, 40), name = randomBytes(rng, 12);
        auto r = sb.run(session, {"bash", "-c", "printf '%s' \"$1\" > \"$2\"; printf '%s' \"$1\"",
                                  "sh", arg, name});
        ASSERT_EQ(r.status, 0) << "round " << round << dump(r);
        EXPECT_EQ(r.out, arg);
        auto changes = sb.cli({"changes", session, "--json"});
        ASSERT_EQ(changes.status, 0) << dump(changes);
        auto parsed = nlohmann::json::parse(changes.out, nullptr, false);
        ASSERT_FALSE(parsed.is_discarded()) << changes.out;
        bool found = false;
        for (const auto& c : parsed)
            found = found || sb::getBytes(c, "path") == name;
        EXPECT_TRUE(found) << changes.out;
        EXPECT_EQ(sb.cli({"diff", session}).status, 0);
        EXPECT_EQ(sb.cli({"export", session, "--format", "asciicast"}).status, 0);
        auto applied = sb.cli({"apply", session});
        EXPECT_EQ(applied.status, 0) << dump(applied);
        EXPECT_EQ(sbtest::readFile(sb.workspace() / name), arg);
    }
}

TEST_F(Arguments, AWorkspacePathThatIsNotUtf8)
{
    const fs::path odd = sb.workspace() / "proj-\xff\xfe";
    sbtest::writeFile(odd / "a.txt", "a\n");
    auto r = sb.cli({"run", "--workspace", odd.string(), "--session-id", "w", "--", "bash", "-c",
                     "echo b > b.txt"});
    ASSERT_EQ(r.status, 0) << dump(r);
    auto applied = sb.cli({"apply", "w"});
    EXPECT_EQ(applied.status, 0) << dump(applied);
    EXPECT_EQ(sbtest::readFile(odd / "b.txt"), "b\n");
}

TEST_F(Arguments, ArgumentListsUpToTheKernelsLimitsRun)
{
    // 20,000 arguments through xargs, as a build would.
    auto many = sb.run("x", {"sh", "-c", "seq 1 20000 | xargs touch && ls | wc -l"});
    ASSERT_EQ(many.status, 0) << dump(many);
    EXPECT_TRUE(contains(many.out, "20001")) << many.out; // and README.md
    // One argument of the largest size the kernel takes (MAX_ARG_STRLEN, its NUL included),
    // and one byte more, which the kernel itself refuses.
    auto largest =
        sb.run("l", {"bash", "-c",
                     "a=$(head -c 131071 /dev/zero | tr '\\0' a); /bin/echo \"$a\" | wc -c; "
                     "/bin/echo \"${a}b\" >/dev/null || echo refused"});
    ASSERT_EQ(largest.status, 0) << dump(largest);
    EXPECT_TRUE(contains(largest.out, "131072\n")) << largest.out;
    EXPECT_TRUE(contains(largest.out, "refused")) << largest.out;
    EXPECT_TRUE(contains(largest.err, "Argument list too long")) << largest.err;
    // 1.4 MB of arguments and their pointers (the default 8 MiB stack allows 2 MiB).
    auto big = sb.run("b", {"bash", "-c", "set -- $(seq 1 100000); /bin/echo \"$@\" | wc -c"});
    ASSERT_EQ(big.status, 0) << dump(big);
    EXPECT_TRUE(contains(big.out, "588895")) << big.out;
    // The recording keeps a prefix and says what it left out.
    auto commands = recordedCommands("b");
    bool omitted = false;
    for (const auto& c : commands)
        if (c.contains("argv_omitted")) {
            omitted = true;
            EXPECT_EQ(c["argv_omitted"]["args"].get<std::size_t>() + c["argv"].size(), 100001u)
                << c["argv_omitted"].dump();
            EXPECT_LE(c.dump().size(), 80u * 1024);
        }
    EXPECT_TRUE(omitted);
}
