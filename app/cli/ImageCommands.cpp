// image import / ls / rm: the root file systems a policy's filesystem.root may name.
#include "Commands.h"
#include "Format.h"
#include "image/ImageStore.h"

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

namespace sbcli {
namespace {

struct ImageArgs {
    std::string name;
    std::string source;
    bool replace = false;
    bool json = false;
};

std::string megabytes(std::uint64_t bytes)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
    return text;
}

void printNotes(const sb::ImageInfo& info)
{
    if (info.notes.empty()) return;
    std::printf("skipped or changed (%zu):\n", info.notes.size());
    for (const std::string& note : info.notes)
        std::printf("  %s\n", note.c_str());
}

int importCommand(const ImageArgs& args)
{
    auto imported = sb::importImage(args.name, args.source, args.replace);
    if (!imported) return fail(imported.error());
    std::printf("imported %s (%s): %llu files, %s\n", imported->name.c_str(),
                imported->format.c_str(), static_cast<unsigned long long>(imported->files),
                megabytes(imported->bytes).c_str());
    printNotes(*imported);
    std::printf("use it with \"filesystem\": {\"root\": \"image:%s\"} in a policy\n",
                imported->name.c_str());
    return 0;
}

int listCommand(const ImageArgs& args)
{
    auto images = sb::listImages();
    if (!images) return fail(images.error());
    if (args.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const sb::ImageInfo& i : *images)
            out.push_back({{"name", i.name},
                           {"format", i.format},
                           {"source", i.source},
                           {"imported_unix_ms", i.importedUnixMs},
                           {"files", i.files},
                           {"bytes", i.bytes},
                           {"notes", i.notes},
                           {"root", i.root.string()}});
        std::printf("%s\n", out.dump(2).c_str());
        return 0;
    }
    if (images->empty()) {
        std::printf("no images (sandbench-cli image import NAME FILE.tar|FOLDER)\n");
        return 0;
    }
    std::printf("%-24s %9s %10s  %-19s  %s\n", "NAME", "FILES", "SIZE", "IMPORTED", "FROM");
    for (const sb::ImageInfo& i : *images)
        std::printf("%-24s %9llu %10s  %-19s  %s\n", i.name.c_str(),
                    static_cast<unsigned long long>(i.files), megabytes(i.bytes).c_str(),
                    i.importedUnixMs ? localTime(i.importedUnixMs).c_str() : "?",
                    i.source.empty() ? "?" : i.source.c_str());
    return 0;
}

int removeCommand(const ImageArgs& args)
{
    if (auto e = sb::removeImage(args.name)) return fail(*e);
    std::printf("removed %s\n", args.name.c_str());
    return 0;
}

} // namespace

void addImageCommands(CLI::App& app)
{
    auto args = std::make_shared<ImageArgs>();
    CLI::App* image =
        app.add_subcommand("image", "Root file systems for sandboxes: import, list, remove");
    image->require_subcommand(1);
    CLI::App* import = image->add_subcommand(
        "import", "Store a root file system: a folder (debootstrap), a `docker export` tar, or "
                  "a `docker save` / OCI image archive (its layers applied in order)");
    import->add_option("name", args->name, "Its name (lower-case letters, digits, . _ -)")
        ->required();
    import->add_option("source", args->source, "The folder or archive")->required();
    import->add_flag("--replace", args->replace, "Replace an image of that name");
    import->callback([args] { exitWith(importCommand(*args));
});
CLI::App* ls = image->add_subcommand("ls", "List the stored images");
ls->add_flag("--json", args->json, "Output as JSON");
ls->callback([args] { exitWith(listCommand(*args)); });
CLI::App* rm = image->add_subcommand("rm", "Remove a stored image");
rm->add_option("name", args->name, "The image")->required();
rm->callback([args] { exitWith(removeCommand(*args)); });
} // namespace sbcli

} // namespace sbcli
