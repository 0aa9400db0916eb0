#include "base/Paths.h"

#include "config.h"

#include <cerrno>
#include <cstdlib>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace sb {
namespace {

fs::path envPath(const char* name)
{
    const char* value = std::getenv(name);
    if (value == nullptr || value[0] != '/')
        return {}; // XDG: relative values are invalid and ignored
    return value;
}

fs::path xdgDirectory(const char* variable, const char* fallbackUnderHome)
{
    fs::path base = envPath(variable);
    if (base.empty()) base = homeDirectory() / fallbackUnderHome;
    return base / "sandbench";
}

} // namespace

fs::path homeDirectory()
{
    if (fs::path home = envPath("HOME"); !home.empty()) return home;
    if (const passwd* pw = getpwuid(getuid()); pw != nullptr && pw->pw_dir != nullptr)
        return pw->pw_dir;
    return "/";
}

fs::path stateDirectory()
{
    return xdgDirectory("XDG_STATE_HOME", ".local/state");
}

fs::path dataDirectory()
{
    return xdgDirectory("XDG_DATA_HOME", ".local/share");
}

fs::path runtimeDirectory()
{
    if (fs::path base = envPath("XDG_RUNTIME_DIR"); !base.empty()) return base / "sandbench";
    return fs::path("/tmp") / ("sandbench-" + std::to_string(getuid()));
}

fs::path configDirectory()
{
    return xdgDirectory("XDG_CONFIG_HOME", ".config");
}

std::vector<fs::path> ownDirectories()
{
    return {configDirectory(), stateDirectory(), dataDirectory(), runtimeDirectory()};
}

Status makeOwnDirectories()
{
    for (const fs::path& dir : ownDirectories()) {
        std::error_code ec;
        fs::create_directories(dir.parent_path(), ec);
        if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
            return sysError("create Sandbench's folder " + dir.string());
    }
    return {};
}

fs::path executableDirectory()
{
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

fs::path shippedDataDirectory()
{
    if (fs::path fromEnv = envPath("SANDBENCH_DATA_DIR"); !fromEnv.empty()) return fromEnv;
    std::error_code ec;
    if (fs::path beside = executableDirectory() / "../share/sandbench";
        fs::is_directory(beside, ec))
        return fs::weakly_canonical(beside, ec);
    if (fs::is_directory(SANDBENCH_INSTALL_DATADIR, ec) &&
        !fs::exists(fs::path(SANDBENCH_SOURCE_DIR) / "resources", ec))
        return SANDBENCH_INSTALL_DATADIR;
    return fs::path(SANDBENCH_SOURCE_DIR) / "resources";
}

} // namespace sb
