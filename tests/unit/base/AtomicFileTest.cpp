// writeFileAtomically (core/base/AtomicFile.h): a file replaced whole through a temporary beside
// it, durable or not, keeping the old file's mode; refusals leave what was there.
#include "base/AtomicFile.h"

#include "TestSupport.h"

#include <sys/stat.h>

using namespace sbtest;

namespace {

// Names in `dir`, hidden ones (the temporaries) included.
std::vector<std::string> namesIn(const std::filesystem::path& dir)
{
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

mode_t modeOf(const std::filesystem::path& file)
{
    struct stat st {};
    EXPECT_EQ(::stat(file.c_str(), &st), 0) << file;
    return st.st_mode & 07777;
}

// The umask for one test.
class Umask {
  public:
    explicit Umask(mode_t mask) : m_old(::umask(mask)) {}
    ~Umask() { ::umask(m_old); }

  private:
    mode_t m_old;
};

} // namespace

TEST(AtomicFile, ANewFileGetsItsModeAndNothingElseIsLeft)
{
    for (bool durable : {true, false}) {
        TempDir dir;
        Umask mask(022);
        ASSERT_FALSE(sb::writeFileAtomically(dir / "a.json", "{}\n",
                                             {.newFileMode = 0600, .durable = durable}));
        EXPECT_EQ(readFile(dir / "a.json"), "{}\n");
        EXPECT_EQ(modeOf(dir / "a.json"), 0600u) << "durable " << durable;
        EXPECT_EQ(namesIn(dir.path()), std::vector<std::string>{"a.json"});
    }
}

TEST(AtomicFile, AnExistingFileIsReplacedWholeAndKeepsItsMode)
{
    for (bool durable : {true, false}) {
        TempDir dir;
        Umask mask(077); // would take the group's bits from a new file
        writeFile(dir / "policy.json", std::string(10000, 'x'));
        ASSERT_EQ(::chmod((dir / "policy.json").c_str(), 0640), 0);
        ASSERT_FALSE(sb::writeFileAtomically(dir / "policy.json", "short\n", {.durable = durable}));
        EXPECT_EQ(readFile(dir / "policy.json"), "short\n");
        EXPECT_EQ(modeOf(dir / "policy.json"), 0640u) << "durable " << durable;
        EXPECT_EQ(namesIn(dir.path()), std::vector<std::string>{"policy.json"});
    }
}

TEST(AtomicFile, ANonRegularFileIsRefusedAndLeftAsItIs)
{
    for (bool durable : {true, false}) {
        TempDir dir;
        std::filesystem::create_directory(dir / "rules");
        writeFile(dir / "rules" / "inside", "kept");
        auto e = sb::writeFileAtomically(dir / "rules", "text", {.durable = durable});
        ASSERT_TRUE(e);
        EXPECT_EQ(e->message,
                  "'" + (dir / "rules").string() + "' is not a regular file; it was left as it is");
        EXPECT_EQ(readFile(dir / "rules" / "inside"), "kept");
        EXPECT_EQ(namesIn(dir.path()), std::vector<std::string>{"rules"});
    }
}

TEST(AtomicFile, AMissingFolderIsNamedAndNothingIsCreated)
{
    for (bool durable : {true, false}) {
        TempDir dir;
        auto e = sb::writeFileAtomically(dir / "absent" / "a.json", "{}", {.durable = durable});
        ASSERT_TRUE(e);
        EXPECT_NE(e->describe().find((dir / "absent").string()), std::string::npos)
            << e->describe();
        EXPECT_TRUE(namesIn(dir.path()).empty());
    }
}
