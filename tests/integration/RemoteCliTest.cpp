// --host and SANDBENCH_HOST without an ssh server (issue 40): SANDBENCH_SSH names a stand-in
// for ssh that runs the remote command here, so the relay (exit status, stdin, stdout and stderr
// apart) and the errors about the remote Sandbench are tested on every machine. RemoteHostTest
// does the same through a real sshd.
#include "IntegrationSupport.h"

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;

namespace {

class RemoteCli : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
    sbtest::TempDir dir;

    void SetUp() override
    {
        // ssh's last argument is the remote command; a login shell would run it the same way.
        sbtest::writeFile(dir / "fake-ssh",
                          "#!/bin/sh\nfor last; do :; done\nexec sh -c \"$last\"\n");
        fs::permissions(dir / "fake-ssh", fs::perms::owner_all);
        fs::create_directories(dir / "bin");
        fs::create_symlink(sbtest::cliPath(), dir / "bin" / "sandbench-cli");
        fs::create_directories(dir / "old");
        // What a sandbench-cli from before dial-stdio says about it (CLI11's words).
        sbtest::writeFile(dir / "old" / "sandbench-cli",
                          "#!/bin/sh\necho 'A subcommand is required' >&2\n"
                          "echo 'Run with --help for more information.' >&2\nexit 2\n");
        fs::permissions(dir / "old" / "sandbench-cli", fs::perms::owner_all);
    }

    sbtest::RunResult remote(const std::vector<std::string>& args, const std::string& path,
                             const std::string& input = {}) const
    {
        std::vector<std::string> argv = {sbtest::cliPath()};
        argv.insert(argv.end(), args.begin(), args.end());
        return sbtest::run(argv, input,
                           sb.env({{"SANDBENCH_SSH", (dir / "fake-ssh").string()},
                                   {"SANDBENCH_HOST", "ssh://elsewhere"},
                                   {"PATH", path + ":/usr/bin:/bin"}}));
    }
};

TEST_F(RemoteCli, RelaysTheExitStatusStdinAndStdoutAndStderrApart)
{
    auto started = sb.cli(
        {"start", "--workspace", sb.workspace().string(), "--name", "relay", "--network", "none"});
    ASSERT_EQ(started.status, 0) << dump(started);
    auto r = remote({"exec", "relay", "--", "sh", "-c", "cat; echo to-stderr >&2; exit 7"},
                    (dir / "bin").string(), "piped in\n");
    EXPECT_EQ(r.status, 7) << dump(r);
    EXPECT_EQ(r.out, "piped in\n") << dump(r);
    EXPECT_TRUE(contains(r.err, "to-stderr")) << dump(r);
    auto ls = remote({"--host", "ssh://other:2222", "ls", "--json"}, (dir / "bin").string());
    EXPECT_EQ(ls.status, 0) << dump(ls);
    EXPECT_TRUE(contains(ls.out, "\"relay\"")) << dump(ls);
    EXPECT_FALSE(sb.cli({"stop", "relay"}).status);
}

TEST_F(RemoteCli, SaysWhenSandbenchIsMissingOrTooOldThere)
{
    auto missing = remote({"ls"}, (dir / "nothing").string());
    EXPECT_EQ(missing.status, 255) << dump(missing);
    EXPECT_TRUE(contains(missing.err, "Sandbench is not installed on ssh://elsewhere"))
        << dump(missing);
    auto old = remote({"ls"}, (dir / "old").string());
    EXPECT_EQ(old.status, 255) << dump(old);
    EXPECT_TRUE(contains(old.err, "Sandbench on ssh://elsewhere is too old")) << dump(old);
}

TEST_F(RemoteCli, RefusesWhatItCannotHonourByName)
{
    auto scheme = remote({"--host", "tcp://devbox", "ls"}, (dir / "bin").string());
    EXPECT_EQ(scheme.status, 2) << dump(scheme);
    EXPECT_TRUE(contains(scheme.err, "expected ssh://[USER@]HOST[:PORT]")) << dump(scheme);
    auto dial = remote({"--host", "ssh://devbox", "dial-stdio"}, (dir / "bin").string());
    EXPECT_EQ(dial.status, 2) << dump(dial);
    EXPECT_TRUE(contains(dial.err, "dial-stdio")) << dump(dial);
    // dial-stdio is for ssh, not for a person at a terminal or a pipe without a client.
    auto direct = sb.cli({"dial-stdio"}, sbit::withEnv({{"SANDBENCH_HOST", "ssh://devbox"}}));
    EXPECT_EQ(direct.status, 0) << "stdin at its end: nothing to serve\n" << dump(direct);
}

} // namespace
