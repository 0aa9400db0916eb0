// Issue 26, item 11: the CLI's smaller promises. A wrong option is a usage error (exit 2) that
// says what is expected, before anything starts; what cannot apply is said; and one-per-line
// output stays one line per entry whatever the names hold.
#include "IntegrationSupport.h"
#include "sandbox/ResourceLimits.h"

#include <algorithm>
#include <sstream>

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;

namespace {

constexpr int kUsageError = 2;

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

} // namespace

TEST(CliOptions, AnInvalidOrTakenSessionIdIsAUsageError)
{
    sbit::Sandbench sb;
    auto invalid = sb.cli(
        {"run", "--workspace", sb.workspace().string(), "--session-id", "bad id", "--", "true"});
    EXPECT_EQ(invalid.status, kUsageError) << dump(invalid);
    EXPECT_TRUE(contains(invalid.err, "invalid session id 'bad id'")) << invalid.err;

    ASSERT_EQ(sb.run("taken", {"true"}).status, 0);
    auto again = sb.run("taken", {"bash", "-c", "echo ran"});
    EXPECT_EQ(again.status, kUsageError) << dump(again);
    EXPECT_TRUE(contains(again.err, "session 'taken' already exists")) << again.err;
    EXPECT_FALSE(contains(again.out, "ran")) << "nothing started";

    auto start = sb.cli({"start", "--workspace", sb.workspace().string(), "--name", "taken"});
    EXPECT_NE(start.status, 0) << dump(start);
    EXPECT_TRUE(contains(start.err, "session 'taken' already exists")) << start.err;
}

TEST(CliOptions, ARequestNumberIsAWholeNumber)
{
    sbit::Sandbench sb;
    for (const char* number : {"-1", "0", "1x", "18446744073709551616"}) {
        auto r = sb.cli({"approve", "any", number, "allow"});
        EXPECT_EQ(r.status, kUsageError) << number << "\n" << dump(r);
        EXPECT_TRUE(contains(r.err, "'" + std::string(number) +
                                        "' is not a whole number from 1 to 18446744073709551615"))
            << r.err;
    }
}

TEST(CliOptions, AnOverrideBeyondThePolicysRangeIsRefused)
{
    sbit::Sandbench sb;
    auto r = sb.run({"true"}, sbit::withOptions({"--timeout", "2592001"}));
    EXPECT_EQ(r.status, kUsageError) << dump(r);
    EXPECT_TRUE(contains(r.err, "--timeout") &&
                contains(r.err, "'2592001' is not a whole number from 0 to 2592000 seconds "
                                "(30 days)"))
        << r.err;
    auto negative = sb.run({"true"}, sbit::withOptions({"--memory", "-5"}));
    EXPECT_EQ(negative.status, kUsageError) << dump(negative);
    EXPECT_EQ(sb.run({"true"}, sbit::withOptions({"--timeout", "2592000"})).status, 0)
        << "the maximum itself is accepted";
}

TEST(CliOptions, SizeWithoutHeadlessIsAUsageError)
{
    sbit::Sandbench sb;
    auto r = sb.run({"true"}, sbit::withOptions({"--size", "30x100"}));
    EXPECT_EQ(r.status, kUsageError) << dump(r);
    EXPECT_TRUE(contains(r.err, "--size requires --headless")) << r.err;
}

TEST(CliOptions, ACpuLimitThatCannotApplyIsSaid)
{
    sbit::Sandbench sb;
    auto r = sb.run({"true"}, sbit::withOptions({"--cpu", "50"}));
    ASSERT_EQ(r.status, 0) << dump(r);
    const bool said = contains(r.err, "the CPU limit (50% of a core) does not apply");
    if (sb::probeCgroupSupport().available())
        EXPECT_FALSE(said) << "with a cgroup it applies\n" << r.err;
    else
        EXPECT_TRUE(said) << "without a cgroup nothing applies it\n" << r.err;
}

TEST(CliOptions, ADatabaseNamedThatIsNotThereIsAnError)
{
    sbit::Sandbench sb;
    const fs::path folder = sb.workspace().parent_path() / "no-such-folder";
    auto r = sb.cli({"sessions", "--db", (folder / "rec.db").string()});
    EXPECT_EQ(r.status, 1) << dump(r);
    EXPECT_TRUE(contains(r.err, "no recording database there (no folder " + folder.string()))
        << r.err;
    EXPECT_FALSE(fs::exists(folder)) << "not made";

    const fs::path file = sb.workspace().parent_path() / "typo.db";
    r = sb.cli({"show", "x", "--db", file.string()});
    EXPECT_EQ(r.status, 1) << dump(r);
    EXPECT_TRUE(contains(r.err, "no recording database there (no such file)")) << r.err;
    EXPECT_FALSE(fs::exists(file)) << "not made";
}

TEST(CliOptions, NamesWithANewlineAreQuotedAsGitDoes)
{
    sbit::Sandbench sb;
    const std::string session = "names";
    ASSERT_EQ(sb.run(session, {"bash", "-c",
                               "printf x > 'two\nlines'; printf y > 'tab\there'; printf z > plain"})
                  .status,
              0);

    auto changes = sb.cli({"changes", session});
    ASSERT_EQ(changes.status, 0) << dump(changes);
    EXPECT_EQ(lines(changes.out),
              (std::vector<std::string>{"A plain", "A \"tab\\there\"", "A \"two\\nlines\""}))
        << changes.out;

    auto diff = sb.cli({"diff", session});
    ASSERT_EQ(diff.status, 0) << dump(diff);
    EXPECT_TRUE(contains(diff.out, "diff --git \"a/two\\nlines\" \"b/two\\nlines\"\n")) << diff.out;
    EXPECT_TRUE(contains(diff.out, "+++ \"b/two\\nlines\"\n")) << diff.out;

    auto apply = sb.cli({"apply", session});
    ASSERT_EQ(apply.status, 0) << dump(apply);
    EXPECT_EQ(std::count(apply.out.begin(), apply.out.end(), '\n'), 3) << apply.out;
    EXPECT_TRUE(contains(apply.out, "applied  \"two\\nlines\"\n")) << apply.out;
    EXPECT_TRUE(fs::exists(sb.workspace() / "two\nlines"));
}

TEST(CliOptions, AListShowsALongCommandLineCut)
{
    sbit::Sandbench sb;
    const std::string longArgument(66 * 1024, 'a');
    ASSERT_EQ(sb.run("long", {"true", longArgument, "tail"}).status, 0);
    auto listed = sb.cli({"sessions"});
    ASSERT_EQ(listed.status, 0) << dump(listed);
    ASSERT_EQ(lines(listed.out).size(), 1u) << listed.out.substr(0, 400);
    EXPECT_LT(listed.out.size(), 300u) << listed.out.substr(0, 400);
    EXPECT_TRUE(contains(listed.out, "true aaaa")) << listed.out;
    EXPECT_TRUE(contains(listed.out, "…\n")) << listed.out;

    auto shown = sb.cli({"show", "long"});
    EXPECT_TRUE(contains(shown.out, longArgument + " tail")) << "show has room for all of it";
}
