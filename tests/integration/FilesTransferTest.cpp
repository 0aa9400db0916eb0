// Copies in and out of a running session lose nothing when they fail: `files get` leaves the
// local file as it was, `files put` cut off (its CLI killed) leaves the target inside as it
// was, and no file request's temporary file ever shows as a change (nor does an MCP write the
// client closed its end right after). Also: exec's options in front of "--" and its working
// folder, and options with bad numbers refused by name.
#include "IntegrationSupport.h"
#include "base/Bytes.h"
#include "control/ControlClient.h"

#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;

extern char** environ;

namespace {

constexpr std::size_t kPart = std::size_t{8} << 20; // the protocol's part of a write

class FilesTransfer : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
    std::string session;

    void startSession(const std::string& name = "files")
    {
        auto r = sb.cli({"start", "--workspace", sb.workspace().string(), "--name", name});
        ASSERT_EQ(r.status, 0) << dump(r);
        session = name;
    }
    void TearDown() override
    {
        if (!session.empty()) (void)sb.cli({"kill", session});
    }
    sbtest::RunResult put(const std::string& target, const std::string& content)
    {
        sbit::RunSpec spec;
        spec.input = content;
        return sb.cli({"files", "put", session, "-", target}, spec);
    }
    // The file requests' temporary files in the session's layer, with their sizes.
    std::vector<std::pair<fs::path, std::uintmax_t>> temporaries(const std::string& id) const
    {
        std::vector<std::pair<fs::path, std::uintmax_t>> found;
        std::error_code ec;
        for (fs::recursive_directory_iterator it(sb.upper(id), ec), end; !ec && it != end;
             it.increment(ec))
            if (it->path().filename().string().starts_with(".sandbench-write-"))
                found.emplace_back(it->path(), fs::file_size(it->path(), ec));
        return found;
    }
    // Polls (up to 30 s) until `done` holds.
    template <typename Done> bool waitFor(Done done) const
    {
        for (int i = 0; i < 600; ++i) {
            if (done()) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return done();
    }
};

// `sandbench-cli ARGS…` in the background with a pipe as its stdin.
struct Background {
    pid_t pid = -1;
    int input = -1;

    Background(const std::vector<std::string>& args, const std::map<std::string, std::string>& env)
    {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) return;
        std::vector<std::string> vars;
        for (char** e = environ; *e; ++e) {
            const std::string var = *e;
            if (!env.count(var.substr(0, var.find('=')))) vars.push_back(var);
        }
        for (const auto& [k, v] : env)
            vars.push_back(k + "=" + v);
        std::vector<std::string> argv = {sbtest::cliPath()};
        argv.insert(argv.end(), args.begin(), args.end());
        pid = ::fork();
        if (pid == 0) {
            ::dup2(fds[0], 0);
            int null = ::open("/dev/null", O_WRONLY);
            ::dup2(null, 1);
            ::dup2(null, 2);
            std::vector<char*> a, v;
            for (auto& s : argv)
                a.push_back(s.data());
            a.push_back(nullptr);
            for (auto& s : vars)
                v.push_back(s.data());
            v.push_back(nullptr);
            ::execve(a[0], a.data(), v.data());
            ::_exit(127);
        }
        ::close(fds[0]);
        input = fds[1];
    }
    ~Background()
    {
        if (input >= 0) ::close(input);
        if (pid > 0) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
        }
    }
    bool write(const std::string& bytes) const
    {
        for (std::string_view rest = bytes; !rest.empty();) {
            ssize_t n = ::write(input, rest.data(), rest.size());
            if (n <= 0) return false;
            rest.remove_prefix(static_cast<std::size_t>(n));
        }
        return true;
    }
    void killWith(int signal)
    {
        ::kill(pid, signal);
        ::waitpid(pid, nullptr, 0);
        pid = -1;
    }
};

} // namespace

TEST_F(FilesTransfer, AFailedGetLeavesTheLocalFileAsItWas)
{
    startSession();
    ASSERT_EQ(sb.cli({"exec", session, "--", "sh", "-c",
                      "mkdir folder && echo secret > locked && chmod 000 locked"})
                  .status,
              0);
    sbtest::TempDir local;
    const fs::path file = local.path() / "kept.txt";
    sbtest::writeFile(file, "the old content\n");
    for (const char* source : {"missing.txt", "folder", "locked"}) {
        auto get = sb.cli({"files", "get", session, source, file.string()});
        EXPECT_NE(get.status, 0) << source << "\n" << dump(get);
        EXPECT_EQ(sbtest::readFile(file), "the old content\n") << source;
    }
    // Nothing but the file itself: no temporary file is left beside it.
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(local.path()))
        names.push_back(entry.path().filename().string());
    EXPECT_EQ(names, std::vector<std::string>{"kept.txt"});
    // A copy that works replaces it, keeping its mode.
    fs::permissions(file, fs::perms(0640));
    ASSERT_EQ(put("new.txt", "the new content\n").status, 0);
    auto get = sb.cli({"files", "get", session, "new.txt", file.string()});
    ASSERT_EQ(get.status, 0) << dump(get);
    EXPECT_EQ(sbtest::readFile(file), "the new content\n");
    EXPECT_EQ(fs::status(file).permissions(), fs::perms(0640));
}

TEST_F(FilesTransfer, AGetStoppedBySignalLeavesNoTemporaryFile)
{
    startSession();
    // Parts enough that the signal most likely comes in the middle; either way the local file
    // is the old one or the whole new one, and nothing is left beside it.
    const std::string content(8 * kPart, 'n');
    ASSERT_EQ(put("large.bin", content).status, 0);
    sbtest::TempDir local;
    const fs::path file = local.path() / "kept.bin";
    for (int signal : {SIGTERM, SIGINT}) {
        SCOPED_TRACE(::strsignal(signal));
        sbtest::writeFile(file, "the old content\n");
        Background get({"files", "get", session, "large.bin", file.string()}, sb.env());
        ASSERT_TRUE(waitFor([&] {
            return std::distance(fs::directory_iterator(local.path()), {}) == 2 ||
                   sbtest::readFile(file) != "the old content\n";
        })) << "the copy never began";
        get.killWith(signal);
        const std::string now = sbtest::readFile(file);
        EXPECT_TRUE(now == "the old content\n" || now == content) << now.size() << " bytes";
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(local.path()))
            names.push_back(entry.path().filename().string());
        EXPECT_EQ(names, std::vector<std::string>{"kept.bin"});
    }
}

TEST_F(FilesTransfer, AKilledPutLeavesTheTargetAsItWasAndNoTemporaryFile)
{
    startSession();
    ASSERT_EQ(put("big.bin", "the old content\n").status, 0);
    for (int signal : {SIGTERM, SIGKILL}) {
        SCOPED_TRACE(::strsignal(signal));
        Background upload({"files", "put", session, "-", "big.bin"}, sb.env());
        ASSERT_GT(upload.pid, 0);
        // A whole part and a little more: the first part travels, the CLI waits for the rest.
        ASSERT_TRUE(upload.write(std::string(kPart + 4096, 'x')));
        ASSERT_TRUE(waitFor([&] {
            auto t = temporaries(session);
            return t.size() == 1 && t[0].second == kPart;
        })) << "the upload's first part never reached a temporary file beside the target";
        upload.killWith(signal);
        auto get = sb.cli({"files", "get", session, "big.bin"});
        EXPECT_EQ(get.out, "the old content\n") << get.err;
        // Its connection closed: the supervisor drops the temporary file.
        EXPECT_TRUE(waitFor([&] { return temporaries(session).empty(); }));
        auto changes = sb.cli({"changes", session});
        EXPECT_FALSE(contains(changes.out, ".sandbench-write")) << changes.out;
    }
    // A whole upload of several parts replaces the target at once.
    const std::string content = std::string(kPart, 'a') + std::string(kPart, 'b') + "end\n";
    ASSERT_EQ(put("big.bin", content).status, 0);
    auto size = sb.cli({"exec", session, "--", "sh", "-c", "wc -c < big.bin; tail -c 4 big.bin"});
    EXPECT_EQ(size.out, std::to_string(content.size()) + "\nend\n") << dump(size);
    EXPECT_TRUE(temporaries(session).empty());
}

TEST_F(FilesTransfer, AnUploadGivenUpLeavesTheTargetAsItWas)
{
    startSession();
    ASSERT_EQ(put("given-up.txt", "the old content\n").status, 0);
    auto client = sb::ControlClient::connectPath(fs::path(sb.env()["XDG_RUNTIME_DIR"]) /
                                                     "sandbench" / (session + ".sock"),
                                                 "test", sb::proto::Role::Viewer);
    ASSERT_TRUE(client) << client.error().describe();
    // The reply to request `id` (an error is one too).
    auto request = [&](nlohmann::json body) {
        const auto id = body["id"].get<std::uint64_t>();
        body["path"] = "given-up.txt";
        EXPECT_FALSE((*client)->send(
            sb::proto::jsonMessage(sb::proto::MsgType::FileRequest, std::move(body))));
        for (;;) {
            auto m = (*client)->receive(30000);
            if (!m) return nlohmann::json{{"ok", false}, {"receive", m.error().describe()}};
            if ((m->type == sb::proto::MsgType::FileReply ||
                 m->type == sb::proto::MsgType::Error) &&
                m->body.value("id", std::uint64_t{0}) == id)
                return m->type == sb::proto::MsgType::Error ? nlohmann::json{{"ok", false}}
                                                            : m->body;
        }
    };
    auto first =
        request({{"id", 1}, {"op", "write"}, {"data_base64", sb::base64("new ")}, {"more", true}});
    ASSERT_TRUE(first.value("ok", false)) << first;
    ASSERT_TRUE(first.contains("upload")) << first;
    EXPECT_EQ(temporaries(session).size(), 1u);
    auto abort =
        request({{"id", 2}, {"op", "write"}, {"upload", first["upload"]}, {"abort", true}});
    EXPECT_TRUE(abort.value("ok", false)) << abort;
    EXPECT_TRUE(waitFor([&] { return temporaries(session).empty(); }));
    auto late = request({{"id", 3},
                         {"op", "write"},
                         {"upload", first["upload"]},
                         {"data_base64", sb::base64("content\n")}});
    EXPECT_FALSE(late.value("ok", false)) << "a part of an upload given up was taken: " << late;
    EXPECT_EQ(sb.cli({"files", "get", session, "given-up.txt"}).out, "the old content\n");
}

TEST_F(FilesTransfer, TemporaryFilesNeverReachTheChanges)
{
    startSession();
    // An upload in progress when the session stops, and a leftover of a helper killed
    // mid-write (planted under the scheme's name).
    ASSERT_EQ(sb.cli({"exec", session, "--", "sh", "-c",
                      "mkdir -p deep && echo left > deep/.sandbench-write-0123456789ab"})
                  .status,
              0);
    Background upload({"files", "put", session, "-", "deep/upload.bin"}, sb.env());
    ASSERT_TRUE(upload.write(std::string(kPart + 1, 'x')));
    ASSERT_TRUE(waitFor([&] { return temporaries(session).size() == 2; }));
    auto live = sb.cli({"changes", session});
    EXPECT_TRUE(contains(live.out, "deep")) << live.out;
    EXPECT_FALSE(contains(live.out, ".sandbench-write")) << live.out;
    ASSERT_EQ(sb.cli({"stop", session}).status, 0);
    ASSERT_TRUE(sb.waitUntilEnded(session));
    upload.killWith(SIGKILL);
    EXPECT_TRUE(temporaries(session).empty());
    auto apply = sb.cli({"apply", session});
    EXPECT_EQ(apply.status, 0) << dump(apply);
    EXPECT_FALSE(fs::exists(sb.workspace() / "deep" / ".sandbench-write-0123456789ab"));
    EXPECT_FALSE(fs::exists(sb.workspace() / "deep" / "upload.bin"));
    session.clear();
}

TEST_F(FilesTransfer, AnMcpWriteTheClientLeftRightAfterIsWhole)
{
    // The client writes and closes its end at once; the server answers the write before it
    // stops the session (found 2 runs in 3 to leave the temporary file as a change).
    const std::string input =
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}})"
        "\n"
        R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
        "\n"
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"notes/mcp.txt","content":"written\n"}}})"
        "\n";
    for (int run = 1; run <= 3; ++run) {
        const std::string id = "mcp" + std::to_string(run);
        sbit::RunSpec spec;
        spec.input = input;
        auto served = sb.cli({"mcp", "--workspace", sb.workspace().string(), "--name", id}, spec);
        EXPECT_EQ(served.status, 0) << dump(served);
        EXPECT_TRUE(contains(served.out, R"("id":2)")) << "no answer to the write\n"
                                                       << dump(served);
        ASSERT_TRUE(sb.waitUntilEnded(id));
        auto changes = sb.cli({"changes", id});
        EXPECT_FALSE(contains(changes.out, ".sandbench-write")) << changes.out;
        EXPECT_TRUE(contains(changes.out, "notes/mcp.txt")) << changes.out;
        EXPECT_TRUE(temporaries(id).empty());
    }
}

TEST_F(FilesTransfer, ABadModeIsRefusedByName)
{
    startSession();
    for (const char* mode : {"999", "77777777777777777777777", "rw"}) {
        sbit::RunSpec spec;
        spec.input = "content\n";
        auto r = sb.cli({"files", "put", session, "-", "y", "--mode", mode}, spec);
        EXPECT_EQ(r.status, 2) << mode << "\n" << dump(r);
        EXPECT_TRUE(contains(r.err, "--mode")) << r.err;
        EXPECT_TRUE(contains(r.err, std::string("'") + mode + "'")) << r.err;
    }
    EXPECT_NE(sb.cli({"files", "stat", session, "y"}).status, 0) << "a file was written";
}

TEST_F(FilesTransfer, ExecOptionsStopAtTheCommand)
{
    startSession();
    auto listed = sb.cli({"exec", session, "--env", "A=1", "--", "ls", "-la", "/dev/null"});
    EXPECT_EQ(listed.status, 0) << dump(listed);
    EXPECT_TRUE(contains(listed.out, "/dev/null")) << dump(listed);
    auto both =
        sb.cli({"exec", session, "-e", "A=1", "--env", "B=2", "--", "sh", "-c", "echo $A$B", "-x"});
    EXPECT_EQ(both.status, 0) << dump(both);
    EXPECT_EQ(both.out, "12\n") << dump(both);
}

TEST_F(FilesTransfer, AWrongWorkingFolderIsNamed)
{
    startSession();
    auto missing = sb.cli({"exec", session, "--cwd", "/nonexistent", "--", "pwd"});
    EXPECT_EQ(missing.status, 126) << dump(missing);
    EXPECT_TRUE(contains(missing.err, "working folder '/nonexistent' does not exist"))
        << missing.err;
    EXPECT_FALSE(contains(missing.err, "command not found")) << missing.err;
    ASSERT_EQ(put("plain.txt", "x\n").status, 0);
    auto file = sb.cli({"exec", session, "--cwd", "plain.txt", "--", "pwd"});
    EXPECT_EQ(file.status, 126) << dump(file);
    EXPECT_TRUE(contains(file.err, "working folder 'plain.txt' is not a folder")) << file.err;
    auto good = sb.cli({"exec", session, "--cwd", "/tmp", "--", "pwd"});
    EXPECT_EQ(good.out, "/tmp\n") << dump(good);
}
