// The retention limits file ($XDG_CONFIG_HOME/sandbench/recordings.json) that `gc` and the
// window's settings share: written atomically, read back, defaults without it, and refusals that
// name the file and the key.
#include "TestSupport.h"
#include "recording/RecordingStore.h"

#include <cstdlib>

using namespace sbtest;

namespace {

// XDG_CONFIG_HOME in a temporary folder for one test.
class ConfigHome {
  public:
    ConfigHome()
    {
        if (const char* old = std::getenv("XDG_CONFIG_HOME")) m_saved = old;
        ::setenv("XDG_CONFIG_HOME", m_dir.path().c_str(), 1);
    }
    ~ConfigHome()
    {
        if (m_saved.empty())
            ::unsetenv("XDG_CONFIG_HOME");
        else
            ::setenv("XDG_CONFIG_HOME", m_saved.c_str(), 1);
    }
    const TempDir& dir() const { return m_dir; }

  private:
    TempDir m_dir;
    std::string m_saved;
};

} // namespace

TEST(RetentionConfig, DefaultsWithoutTheFile)
{
    ConfigHome home;
    auto limits = sb::loadRetentionLimits();
    ASSERT_TRUE(limits) << limits.error().describe();
    EXPECT_EQ(limits->maxSizeMb, 2048u);
    EXPECT_EQ(limits->maxAgeDays, 90u);
    auto gc = sb::loadRetentionConfig();
    ASSERT_TRUE(gc);
    EXPECT_EQ(gc->maxBytes, std::uint64_t(2048) << 20);
    EXPECT_EQ(gc->maxAgeNs, std::int64_t(90) * 86400 * 1'000'000'000);
}

TEST(RetentionConfig, SavedLimitsAreReadBack)
{
    ConfigHome home;
    ASSERT_FALSE(sb::saveRetentionLimits({512, 0})); // folder created on the way
    EXPECT_EQ(sb::retentionConfigPath(), home.dir() / "sandbench" / "recordings.json");
    auto limits = sb::loadRetentionLimits();
    ASSERT_TRUE(limits) << limits.error().describe();
    EXPECT_EQ(limits->maxSizeMb, 512u);
    EXPECT_EQ(limits->maxAgeDays, 0u);
    auto gc = sb::loadRetentionConfig();
    ASSERT_TRUE(gc);
    EXPECT_EQ(gc->maxBytes, std::uint64_t(512) << 20);
    EXPECT_FALSE(gc->maxAgeNs); // 0 = no limit
    // Nothing left beside it.
    int files = 0;
    for ([[maybe_unused]] const auto& entry :
         std::filesystem::directory_iterator(home.dir() / "sandbench"))
        ++files;
    EXPECT_EQ(files, 1);
}

TEST(RetentionConfig, BadValuesNameTheFileAndKey)
{
    ConfigHome home;
    std::filesystem::create_directories(home.dir() / "sandbench");
    writeFile(home.dir() / "sandbench" / "recordings.json", R"({"max_age_days": 200000})");
    auto tooOld = sb::loadRetentionLimits();
    ASSERT_FALSE(tooOld);
    EXPECT_NE(tooOld.error().message.find("recordings.json: 'max_age_days' must be a whole "
                                          "number from 0 (no limit) to 100000"),
              std::string::npos)
        << tooOld.error().message;
    writeFile(home.dir() / "sandbench" / "recordings.json", R"({"max_size": 1})");
    auto unknown = sb::loadRetentionLimits();
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.error().message.find("unknown key 'max_size'"), std::string::npos);
}
