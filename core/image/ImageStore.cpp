#include "image/ImageStore.h"

#include "base/AtomicFile.h"
#include "base/FolderTree.h"
#include "base/Paths.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

namespace sb {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kInfoFile = "image.json";
constexpr const char* kRootDir = "rootfs";

Error fsError(const std::error_code& ec, const std::string& what)
{
    return Error{ErrorCode::System, ec.value(), what};
}

std::optional<json> readJson(const fs::path& file)
{
    std::ifstream in(file);
    if (!in) return std::nullopt;
    json j = json::parse(in, nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    return j;
}

// A path an image archive names (a layer, a blob): inside it, and a regular file there.
Result<fs::path> fileInside(const fs::path& dir, const std::string& rel, const std::string& what)
{
    if (rel.empty() || rel.front() == '/' || rel.find("..") != std::string::npos)
        return Error{ErrorCode::InvalidInput, 0,
                     what + " '" + rel + "' is not a path inside the archive"};
    std::error_code ec;
    const fs::path file = dir / rel;
    if (!fs::is_regular_file(fs::symlink_status(file, ec)))
        return Error{ErrorCode::InvalidInput, 0, what + " '" + rel + "' is not in the archive"};
    return file;
}

// "sha256:<hex>" → blobs/sha256/<hex> of an OCI layout.
Result<fs::path> blobFile(const fs::path& dir, const json& descriptor, const std::string& what)
{
    const std::string digest = descriptor.is_object() ? descriptor.value("digest", "") : "";
    const std::size_t colon = digest.find(':');
    const std::string algorithm = digest.substr(0, colon);
    const std::string hex = colon == std::string::npos ? "" : digest.substr(colon + 1);
    const bool valid =
        !algorithm.empty() && !hex.empty() &&
        algorithm.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789") == std::string::npos &&
        hex.find_first_not_of("0123456789abcdef") == std::string::npos;
    if (!valid)
        return Error{ErrorCode::InvalidInput, 0, what + " has no valid digest ('" + digest + "')"};
    return fileInside(dir, "blobs/" + algorithm + "/" + hex, what);
}

// The layer files of an unpacked `docker save` archive (manifest.json) or OCI image layout
// (index.json), bottom first; nothing when it is neither (a plain root file system).
Result<std::vector<fs::path>> imageLayers(const fs::path& dir, std::string& format)
{
    std::error_code ec;
    std::vector<fs::path> layers;
    if (fs::is_regular_file(fs::symlink_status(dir / "manifest.json", ec))) {
        format = "docker save";
        auto manifest = readJson(dir / "manifest.json");
        if (!manifest || !manifest->is_array() || manifest->empty() ||
            !(*manifest)[0].is_object() || !(*manifest)[0].value("Layers", json()).is_array())
            return Error{ErrorCode::InvalidInput, 0,
                         "manifest.json is not a docker save manifest (an array of images with "
                         "their \"Layers\")"};
        if (manifest->size() > 1)
            return Error{ErrorCode::InvalidInput, 0,
                         "the archive holds " + std::to_string(manifest->size()) +
                             " images; save one (docker save IMAGE)"};
        for (const json& layer : (*manifest)[0]["Layers"]) {
            if (!layer.is_string())
                return Error{ErrorCode::InvalidInput, 0, "manifest.json: a layer is not a path"};
            auto file = fileInside(dir, layer.get<std::string>(), "the layer");
            if (!file) return file.error();
            layers.push_back(*file);
        }
        return layers;
    }
    if (!fs::is_regular_file(fs::symlink_status(dir / "index.json", ec))) return layers;
    format = "OCI layout";
    auto index = readJson(dir / "index.json");
    // An index may name an index (several platforms): this machine's, else the first.
    json descriptor;
    for (int depth = 0; depth < 4; ++depth) {
        if (!index || !index->value("manifests", json()).is_array() ||
            (*index)["manifests"].empty())
            break;
        descriptor = (*index)["manifests"][0];
        for (const json& m : (*index)["manifests"]) {
            const json platform = m.value("platform", json::object());
            if (platform.value("os", "") == "linux" &&
                platform.value("architecture", "") == "amd64")
                descriptor = m;
        }
        auto file = blobFile(dir, descriptor, "the image's manifest");
        if (!file) return file.error();
        index = readJson(*file);
        if (index && index->value("layers", json()).is_array()) {
            for (const json& layer : (*index)["layers"]) {
                auto blob = blobFile(dir, layer, "a layer");
                if (!blob) return blob.error();
                layers.push_back(*blob);
            }
            return layers;
        }
    }
    return Error{ErrorCode::InvalidInput, 0,
                 "index.json names no image manifest with layers (an OCI image layout)"};
}

ImageInfo infoFrom(const std::string& name, const fs::path& dir)
{
    ImageInfo info;
    info.name = name;
    info.root = dir / kRootDir;
    auto j = readJson(dir / kInfoFile);
    if (!j || !j->is_object()) {
        info.notes.push_back(std::string(kInfoFile) + " is missing or unreadable");
        return info;
    }
    info.source = j->value("source", "");
    info.format = j->value("format", "");
    info.importedUnixMs = j->value("imported_unix_ms", std::int64_t{0});
    info.files = j->value("files", std::uint64_t{0});
    info.bytes = j->value("bytes", std::uint64_t{0});
    for (const json& n : j->value("notes", json::array()))
        if (n.is_string()) info.notes.push_back(n.get<std::string>());
    return info;
}

// Unpacks `source` into `work`/rootfs (layers applied) and says what it was.
Status unpackImage(const fs::path& source, const fs::path& work, std::uint64_t maxBytes,
                   ImportReport& report, std::string& format)
{
    std::error_code ec;
    const fs::path root = work / kRootDir;
    if (fs::is_directory(source, ec)) {
        format = "folder";
        fs::create_directory(root, ec);
        if (ec) return fsError(ec, "create '" + root.string() + "'");
        return unpackInto({ArchiveSource::Kind::Folder, source, maxBytes}, root, false, report);
    }
    if (!fs::exists(source, ec))
        return Error{ErrorCode::NotFound, 0, "'" + source.string() + "' does not exist"};
    const fs::path unpacked = work / "archive";
    fs::create_directory(unpacked, ec);
    if (ec) return fsError(ec, "create '" + unpacked.string() + "'");
    ImportReport outer;
    if (auto e = unpackInto({ArchiveSource::Kind::File, source, maxBytes}, unpacked, false, outer))
        return e;
    auto layers = imageLayers(unpacked, format);
    if (!layers) return layers.error().within("'" + source.string() + "'");
    if (layers->empty()) { // a root file system as it is
        format = "root file system archive";
        report = std::move(outer);
        fs::rename(unpacked, root, ec);
        return ec ? Status(fsError(ec, "move the unpacked files into place")) : Status{};
    }
    fs::create_directory(root, ec);
    if (ec) return fsError(ec, "create '" + root.string() + "'");
    for (const fs::path& layer : *layers)
        if (auto e = unpackInto({ArchiveSource::Kind::File, layer, maxBytes}, root, true, report))
            return e->within("layer " + layer.filename().string());
    (void)removeFolderTree(unpacked);
    return {};
}

} // namespace

fs::path imagesDirectory()
{
    return dataDirectory() / "images";
}

Status checkImageName(const std::string& name)
{
    const auto bad = [&](const std::string& why) {
        return Error{ErrorCode::InvalidInput, 0, "image name '" + name + "': " + why};
    };
    if (name.empty() || name.size() > 64) return bad("1 to 64 characters");
    if (!std::isalnum(static_cast<unsigned char>(name[0])))
        return bad("must start with a letter or a digit");
    for (char c : name)
        if (!(std::islower(static_cast<unsigned char>(c)) ||
              std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
            return bad("only lower-case letters, digits, '.', '_' and '-'");
    return {};
}

Result<ImageInfo> importImage(const std::string& name, const fs::path& source, bool replace,
                              const fs::path& images, std::uint64_t maxBytes)
{
    if (auto e = checkImageName(name)) return *e;
    std::error_code ec;
    const fs::path target = images / name;
    if (fs::exists(fs::symlink_status(target, ec)) && !replace)
        return Error{ErrorCode::InvalidInput, 0,
                     "an image named '" + name + "' exists: remove it first (image rm " + name +
                         ") or import with --replace"};
    fs::create_directories(images, ec);
    if (ec) return fsError(ec, "create '" + images.string() + "'");
    std::string pattern = (images / (".import-" + name + "-XXXXXX")).string();
    if (!::mkdtemp(pattern.data())) return sysError("create a folder in '" + images.string() + "'");
    const fs::path work = pattern;
    struct Cleanup {
        fs::path dir;
        ~Cleanup()
        {
            if (!dir.empty()) (void)removeFolderTree(dir);
        }
    } cleanup{work};

    ImportReport report;
    std::string format;
    if (auto e = unpackImage(source, work, maxBytes, report, format)) return *e;
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    json notes = report.notes;
    if (report.moreNotes > 0)
        notes.push_back("… and " + std::to_string(report.moreNotes) + " more");
    const json info = {{"name", name},          {"source", source.string()},
                       {"format", format},      {"imported_unix_ms", now},
                       {"files", report.files}, {"bytes", report.bytes},
                       {"notes", notes}};
    if (auto e = writeFileAtomically(work / kInfoFile, info.dump(2) + "\n")) return *e;

    // Into place: an image being replaced goes aside first and is removed once the new one is in.
    const fs::path old = images / (".old-" + name);
    (void)removeFolderTree(old);
    if (fs::exists(fs::symlink_status(target, ec))) {
        fs::rename(target, old, ec);
        if (ec) return fsError(ec, "move the old '" + name + "' aside");
    }
    fs::rename(work, target, ec);
    if (ec) return fsError(ec, "move the image into '" + target.string() + "'");
    cleanup.dir = old;
    return infoFrom(name, target);
}

Result<std::vector<ImageInfo>> listImages(const fs::path& images)
{
    std::vector<ImageInfo> out;
    std::error_code ec;
    if (!fs::exists(images, ec)) return out;
    for (const auto& entry : fs::directory_iterator(images, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name.front() == '.' || !entry.is_directory()) continue;
        out.push_back(infoFrom(name, entry.path()));
    }
    if (ec) return fsError(ec, "list '" + images.string() + "'");
    std::sort(out.begin(), out.end(),
              [](const ImageInfo& a, const ImageInfo& b) { return a.name < b.name; });
    return out;
}

Result<ImageInfo> findImage(const std::string& name, const fs::path& images)
{
    if (auto e = checkImageName(name)) return *e;
    std::error_code ec;
    if (!fs::is_directory(fs::symlink_status(images / name, ec)))
        return Error{ErrorCode::NotFound, 0,
                     "no image named '" + name + "' (sandbench-cli image ls lists them)"};
    return infoFrom(name, images / name);
}

Status removeImage(const std::string& name, const fs::path& images)
{
    auto found = findImage(name, images);
    if (!found) return found.error();
    if (auto e = removeFolderTree(images / name))
        return e->within("remove the image '" + name + "'");
    return {};
}

Result<fs::path> resolveSystemRoot(const std::string& root, const fs::path& images)
{
    constexpr std::string_view kImage = "image:";
    if (root.empty()) return fs::path("/");
    fs::path folder = root;
    if (root.rfind(kImage, 0) == 0) {
        auto image = findImage(root.substr(kImage.size()), images);
        if (!image) return image.error();
        folder = image->root;
    } else if (!folder.is_absolute()) {
        return Error{ErrorCode::InvalidInput, 0,
                     "'" + root + "' is neither \"image:NAME\" nor an absolute folder"};
    }
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
        return Error{ErrorCode::NotFound, 0,
                     "the root file system '" + folder.string() + "' is not a folder"};
    // A root with no system folder at all is a mistake (a project folder named by accident).
    bool any = false;
    for (const char* system : {"usr", "bin", "lib", "etc"})
        any = any || fs::exists(fs::symlink_status(folder / system, ec));
    if (!any)
        return Error{ErrorCode::InvalidInput, 0,
                     "'" + folder.string() +
                         "' has none of usr, bin, lib or etc: not a root file system"};
    return folder;
}

} // namespace sb
