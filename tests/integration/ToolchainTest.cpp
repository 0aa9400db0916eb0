// The sandbox must stay useful: the everyday tools of a coding agent, each really run inside a
// sandbox started by the real CLI, including the interactive ones on a terminal.
#include "IntegrationSupport.h"

#include <chrono>

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

using sbit::contains;
using sbit::dump;

class Toolchain : public ::testing::Test {
  protected:
    sbit::Sandbench sb;

    // The CLI on a pty running COMMAND in the sandbox, as a person at a terminal starts it.
    std::unique_ptr<sbit::PtyProgram> onTerminal(const std::vector<std::string>& command)
    {
        std::vector<std::string> argv = {
            sbtest::cliPath(), "run", "--workspace", sb.workspace().string(),
            "--session-id",    "tty", "--"};
        argv.insert(argv.end(), command.begin(), command.end());
        return std::make_unique<sbit::PtyProgram>(argv, sb.env());
    }
};

} // namespace

TEST_F(Toolchain, GitInitAddCommitWithIdentityFromPolicy)
{
    sbtest::writeFile(sb.workspace() / "main.py", "print('hi')\n");
    auto policy = sb.writePolicy(R"({"version": 1, "env": {"set": {
        "GIT_AUTHOR_NAME": "Sandbox Agent", "GIT_AUTHOR_EMAIL": "agent@example.com",
        "GIT_COMMITTER_NAME": "Sandbox Agent", "GIT_COMMITTER_EMAIL": "agent@example.com"}}})");
    auto r = sb.run("git",
                    {"bash", "-c",
                     "set -e; git init -q -b main; git add .; git commit -qm 'first commit'; "
                     "git log --format='%an|%s'; git status --porcelain | wc -l"},
                    sbit::withOptions({"--policy", policy.string()}));
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_EQ(sbit::lines(r.out), (std::vector<std::string>{"Sandbox Agent|first commit", "0"}))
        << dump(r);

    // The repository reaches the real project only through apply, and is a valid one there.
    // Its configuration runs later (git reads it on every command): held back until named.
    EXPECT_FALSE(fs::exists(sb.workspace() / ".git"));
    auto applied = sb.cli({"apply", "git"});
    ASSERT_EQ(applied.status, 3) << dump(applied);
    EXPECT_TRUE(sbit::contains(applied.out, "held     .git/config: runs later")) << dump(applied);
    EXPECT_FALSE(sbit::contains(applied.out, ".sample: runs later"))
        << "git runs no .sample hook: they need no confirmation\n"
        << dump(applied);
    EXPECT_FALSE(fs::exists(sb.workspace() / ".git/config"));
    auto config = sb.cli({"apply", "git", ".git/config", "--run-later"});
    ASSERT_EQ(config.status, 0) << dump(config);
    auto log = sbtest::run({"git", "-C", sb.workspace().string(), "log", "--format=%s"});
    EXPECT_EQ(log.out, "first commit\n") << dump(log);
}

TEST_F(Toolchain, GitCommitWithCommandLineIdentity)
{
    sbtest::writeFile(sb.workspace() / "a.txt", "a\n");
    auto r = sb.sh("set -e; git init -q; git add a.txt; git -c user.name=Someone -c "
                   "user.email=someone@example.com commit -qm msg; git log --format=%ae");
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_EQ(r.out, "someone@example.com\n") << dump(r);
}

TEST_F(Toolchain, MakeBuildsAndRunsACProject)
{
    sbtest::writeFile(sb.workspace() / "hello.c",
                      "#include <stdio.h>\n"
                      "int square(int x);\n"
                      "int main(void) { printf(\"hello %d\\n\", square(7)); return 0; }\n");
    sbtest::writeFile(sb.workspace() / "square.c", "int square(int x) { return x * x; }\n");
    sbtest::writeFile(sb.workspace() / "Makefile", "CFLAGS = -O2 -Wall\n"
                                                   "hello: hello.o square.o\n"
                                                   "\t$(CC) $(CFLAGS) -o $@ $^\n"
                                                   "clean:\n"
                                                   "\trm -f hello *.o\n");
    auto r = sb.sh("make -s && ./hello");
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_EQ(r.out, "hello 49\n") << dump(r);
    EXPECT_FALSE(fs::exists(sb.workspace() / "hello")) << "build output stays in the session";
}

TEST_F(Toolchain, Python3RunsAScriptWithTheStandardLibrary)
{
    sbtest::writeFile(sb.workspace() / "script.py",
                      "import json, sqlite3, hashlib, pathlib, tempfile\n"
                      "db = sqlite3.connect(':memory:')\n"
                      "db.execute('create table t (x)')\n"
                      "db.executemany('insert into t values (?)', [(i,) for i in range(10)])\n"
                      "total = db.execute('select sum(x) from t').fetchone()[0]\n"
                      "with tempfile.TemporaryDirectory() as d:\n"
                      "    (pathlib.Path(d) / 'f').write_text('x')\n"
                      "pathlib.Path('out.json').write_text(json.dumps({'total': total}))\n"
                      "print(total, hashlib.sha256(b'abc').hexdigest()[:8])\n");
    auto r = sb.run({"python3", "script.py"});
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_EQ(r.out, "45 ba7816bf\n") << dump(r);
    EXPECT_EQ(sbtest::readFile(sb.upper("it1") / "out.json"), "{\"total\": 45}");
}

TEST_F(Toolchain, NodeRunsAScript)
{
    bool installed = false;
    for (const char* dir : {"/usr/bin/node", "/usr/local/bin/node", "/usr/bin/nodejs"})
        installed = installed || fs::exists(dir);
    if (!installed) SB_SKIP("node is not installed (scripts/deps.sh installs nodejs)");
    sbtest::writeFile(sb.workspace() / "script.js",
                      "const fs = require('fs');\n"
                      "const os = require('os');\n"
                      "fs.writeFileSync('out.txt', String([1, 2, 3].map(x => x * 2)));\n"
                      "setTimeout(() => console.log('node', fs.readFileSync('out.txt', 'utf8'), "
                      "os.tmpdir()), 10);\n");
    auto r = sb.run({"bash", "-c", "node script.js || nodejs script.js"});
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_EQ(r.out, "node 2,4,6 /tmp\n") << dump(r);
}

TEST_F(Toolchain, BashJobControlWorksOnTheSandboxTerminal)
{
    auto cli = onTerminal({"bash", "-i", "-c", "sleep 0.2 & jobs; wait; echo waited-$?"});
    EXPECT_TRUE(cli->waitFor("waited-", 30s)) << cli->output();
    EXPECT_EQ(cli->wait(30s), 0) << cli->output();
    const std::string& out = cli->output();
    EXPECT_TRUE(contains(out, "Running")) << out;
    EXPECT_TRUE(contains(out, "sleep 0.2")) << out;
    EXPECT_TRUE(contains(out, "waited-0")) << out;
    // What bash says when it gets no terminal of its own to control.
    EXPECT_FALSE(contains(out, "no job control")) << out;
    EXPECT_FALSE(contains(out, "cannot set terminal process group")) << out;
}

TEST_F(Toolchain, LessShowsAFileOnTheSandboxTerminalAndQuits)
{
    const std::string text = "a line only this test writes " + sbit::uniqueToken();
    std::string body;
    for (int i = 0; i < 100; ++i)
        body += (i == 0 ? text : "filler line " + std::to_string(i)) + "\n";
    sbtest::writeFile(sb.workspace() / "notes.txt", body);
    auto cli = onTerminal({"less", "notes.txt"});
    ASSERT_TRUE(cli->waitFor(text, 30s)) << cli->output();
    // A full screen of a 100-line file: less is paging, not just printing.
    EXPECT_TRUE(cli->waitFor("filler line 20", 10s)) << cli->output();
    EXPECT_FALSE(contains(cli->output(), "filler line 99")) << cli->output();
    cli->send("q");
    EXPECT_EQ(cli->wait(30s), 0) << cli->output();
}
