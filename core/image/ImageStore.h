// Root file systems for sandboxes ("images"), stored under the data folder
// ($XDG_DATA_HOME/sandbench/images/NAME: its files in rootfs/, what it is in image.json).
// Imported from a folder (debootstrap), a plain root file system tar (`docker export`,
// `podman export`) or an image archive with layers (`docker save`, an OCI image layout as a
// tar), its layers applied in order with their whiteouts. Nothing is fetched from a network.
#pragma once

#include "base/Error.h"
#include "image/ImageArchive.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sb {

struct ImageInfo {
    std::string name;
    std::string source; // what it was imported from, as given
    std::string format; // "folder", "root file system archive", "docker save", "OCI layout"
    std::int64_t importedUnixMs = 0;
    std::uint64_t files = 0;
    std::uint64_t bytes = 0;
    std::vector<std::string> notes; // what the import skipped or changed
    std::filesystem::path root;     // its rootfs/ folder
};

// $XDG_DATA_HOME/sandbench/images, or `base` for tests.
std::filesystem::path imagesDirectory();

// A name is 1-64 of [a-z0-9._-], starting with a letter or digit; an error says what is wrong.
Status checkImageName(const std::string& name);

// Imports `source` (a folder or an archive) as `name`: unpacked into a temporary folder beside
// the others and renamed into place only when complete, so a failed import leaves nothing. An
// existing image of that name is an error unless `replace`. More than `maxBytes` of content is
// an error too (the fuzz target's guard against archive bombs).
Result<ImageInfo> importImage(const std::string& name, const std::filesystem::path& source,
                              bool replace, const std::filesystem::path& images = imagesDirectory(),
                              std::uint64_t maxBytes = UINT64_MAX);

// The stored images, by name; one whose image.json is unreadable is listed with a note saying so.
Result<std::vector<ImageInfo>> listImages(const std::filesystem::path& images = imagesDirectory());
Result<ImageInfo> findImage(const std::string& name,
                            const std::filesystem::path& images = imagesDirectory());
Status removeImage(const std::string& name,
                   const std::filesystem::path& images = imagesDirectory());

// A policy's filesystem.root as the folder the sandbox's system folders come from: "" is this
// machine's ("/"), "image:NAME" a stored image's rootfs, anything else an absolute folder that
// must exist. An error names what is wrong.
Result<std::filesystem::path>
resolveSystemRoot(const std::string& root, const std::filesystem::path& images = imagesDirectory());

} // namespace sb
