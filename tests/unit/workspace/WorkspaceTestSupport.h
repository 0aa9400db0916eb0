// A project folder and an overlay upper layer beside it, for the workspace tests: files on either
// side, whiteouts and opaque folders as overlayfs writes them.
#pragma once

#include "TestSupport.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

namespace sbtest {

class LayerTest : public ::testing::Test {
  protected:
    using path = std::filesystem::path;
    sbtest::TempDir root;
    path project = root / "project";
    path upper = root / "upper";

    void SetUp() override
    {
        std::filesystem::create_directories(project);
        std::filesystem::create_directories(upper);
        // Whiteouts need Linux >= 5.8 unprivileged, opaque markers need user xattrs.
        path probe = root / "probe";
        if (::mknod(probe.c_str(), S_IFCHR | 0000, makedev(0, 0)) != 0)
            SB_SKIP(std::string("cannot create a whiteout: ") + std::strerror(errno));
        std::filesystem::remove(probe);
        std::filesystem::create_directories(probe);
        if (::setxattr(probe.c_str(), "user.overlay.opaque", "y", 1, 0) != 0)
            SB_SKIP(std::string("no user xattrs on $TMPDIR: ") + std::strerror(errno));
        std::filesystem::remove(probe);
    }

    void real(const std::string& rel, const std::string& content)
    {
        sbtest::writeFile(project / rel, content);
    }
    void up(const std::string& rel, const std::string& content)
    {
        sbtest::writeFile(upper / rel, content);
    }
    void whiteout(const std::string& rel)
    {
        std::filesystem::create_directories((upper / rel).parent_path());
        ASSERT_EQ(::mknod((upper / rel).c_str(), S_IFCHR | 0000, makedev(0, 0)), 0) << rel;
    }
    void opaque(const std::string& rel)
    {
        std::filesystem::create_directories(upper / rel);
        ASSERT_EQ(::setxattr((upper / rel).c_str(), "user.overlay.opaque", "y", 1, 0), 0) << rel;
    }
};

} // namespace sbtest
