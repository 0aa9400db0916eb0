// The exec helper's file requests (ExecHelper.h): done inside the sandbox, as its user, so a
// request sees the files as the sandbox does and can do no more than the sandbox's processes.
// Contents travel as descriptors: the supervisor reads a file the helper opened, and writes a
// temporary file the helper made, which the helper then renames over the target (atomic).
#pragma once

#include "base/UniqueFd.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sb {

// Bounds of one request (docs/protocol.md, "Files").
constexpr std::size_t kMaxListEntries = 10000;
constexpr std::size_t kMaxListReplyBytes = 160 * 1024; // within one channel message

class Files {
  public:
    explicit Files(std::filesystem::path project) : m_project(std::move(project)) {}
    ~Files();
    Files(const Files&) = delete;
    Files& operator=(const Files&) = delete;

    // One request: {"ok": true, …} or {"ok": false, "errno", "message"}; descriptors to send
    // beside the reply go to `fds` (the caller closes them once sent).
    nlohmann::json handle(const std::string& op, const nlohmann::json& request,
                          std::vector<int>& fds);

  private:
    struct PendingWrite {
        UniqueFd dir; // the target's folder, where the temporary file waits
        std::string temp, name;
        mode_t mode = 0644;
        nlohmann::json metadata; // set on the file before it is put in place (FileMetadata.h)
    };
    nlohmann::json openRead(const std::string& path, std::vector<int>& fds);
    nlohmann::json openWrite(std::uint64_t id, const std::string& path, const nlohmann::json& r,
                             std::vector<int>& fds);
    nlohmann::json finishWrite(std::uint64_t id, bool commit);

    std::filesystem::path m_project;
    std::map<std::uint64_t, PendingWrite> m_writes;
};

} // namespace sb
