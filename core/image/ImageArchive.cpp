#include "image/ImageArchive.h"

#include "image/ArchiveLibrary.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <sys/stat.h>

namespace sb {
namespace fs = std::filesystem;

void ImportReport::note(std::string line)
{
    if (notes.size() < kMaxNotes)
        notes.push_back(std::move(line));
    else
        ++moreNotes;
}

namespace {

constexpr std::string_view kWhiteout = ".wh.";
constexpr std::string_view kOpaque = ".wh..wh..opq";

// The next component of a '/'-separated path, taken off its front.
std::string_view nextPart(std::string_view& rest)
{
    const std::size_t slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    return part;
}

// An entry's path inside the image: "./a//b/" is "a/b", the root itself "". Nothing, and why,
// for a path that is absolute or climbs out.
std::optional<std::string> cleanPath(std::string_view raw, std::string& why)
{
    if (!raw.empty() && raw.front() == '/') {
        why = "an absolute path";
        return std::nullopt;
    }
    std::string out;
    while (!raw.empty()) {
        const std::string_view part = nextPart(raw);
        if (part.empty() || part == ".") continue;
        if (part == "..") {
            why = "a path that climbs out of the image (..)";
            return std::nullopt;
        }
        if (!out.empty()) out += '/';
        out += part;
    }
    return out;
}

// Whether a relative link target, followed from the folder `dir` (a path inside the image),
// would climb above the image's root.
bool climbsAboveRoot(const std::string& dir, std::string_view target)
{
    if (target.empty() || target.front() == '/') return false;
    long depth = dir.empty() ? 0 : std::count(dir.begin(), dir.end(), '/') + 1;
    while (!target.empty()) {
        const std::string_view part = nextPart(target);
        if (part == "..") {
            if (--depth < 0) return true;
        } else if (!part.empty() && part != ".") {
            ++depth;
        }
    }
    return false;
}

std::string parentOf(const std::string& rel)
{
    const std::size_t slash = rel.rfind('/');
    return slash == std::string::npos ? std::string() : rel.substr(0, slash);
}

std::string baseOf(const std::string& rel)
{
    const std::size_t slash = rel.rfind('/');
    return slash == std::string::npos ? rel : rel.substr(slash + 1);
}

// The first folder on the way to `rel` that is a link, if any: an entry is never written through
// one (libarchive would replace the link with a folder; the link is the archive's own word).
std::optional<std::string> linkOnTheWay(const fs::path& root, const std::string& rel)
{
    std::error_code ec;
    std::size_t slash = 0;
    while ((slash = rel.find('/', slash)) != std::string::npos) {
        const std::string parent = rel.substr(0, slash++);
        if (fs::is_symlink(fs::symlink_status(root / parent, ec))) return parent;
    }
    return std::nullopt;
}

// Whether `rel` ("" the root) is a folder reached through folders only, no link on the way or
// at its end: where a whiteout may remove something.
bool realFolder(const fs::path& root, const std::string& rel)
{
    std::error_code ec;
    return rel.empty() ||
           (!linkOnTheWay(root, rel) && fs::is_directory(fs::symlink_status(root / rel, ec)));
}

// libarchive's objects, freed by the library's own functions.
using ReadHandle = std::unique_ptr<archive, decltype(&::archive_read_free)>;
using WriteHandle = std::unique_ptr<archive, decltype(&::archive_write_free)>;
using EntryHandle = std::unique_ptr<archive_entry, decltype(&::archive_entry_free)>;

std::string sourceName(const ArchiveSource& source)
{
    return "'" + source.path.string() + "'";
}

Error archiveError(const ArchiveLibrary& lib, archive* a, const std::string& what)
{
    const char* why = lib.archive_error_string(a);
    return Error{ErrorCode::InvalidInput, 0, what + ": " + (why ? why : "unreadable")};
}

Result<ReadHandle> openSource(const ArchiveLibrary& lib, const ArchiveSource& source)
{
    if (source.kind == ArchiveSource::Kind::Folder) {
        ReadHandle reader(lib.archive_read_disk_new(), lib.archive_read_free);
        lib.archive_read_disk_set_symlink_physical(reader.get());
        if (lib.archive_read_disk_open(reader.get(), source.path.c_str()) != ARCHIVE_OK)
            return archiveError(lib, reader.get(), "read the folder " + sourceName(source));
        return reader;
    }
    ReadHandle reader(lib.archive_read_new(), lib.archive_read_free);
    lib.archive_read_support_filter_all(reader.get());
    lib.archive_read_support_format_tar(reader.get());
    if (lib.archive_read_open_filename(reader.get(), source.path.c_str(), 64 * 1024) != ARCHIVE_OK)
        return archiveError(lib, reader.get(), "open " + sourceName(source));
    return reader;
}

// Walks the entries of `source`, each with its path inside the image ("" for a folder source's
// own top); `visit` returns an error to stop.
template <class Visit>
Status forEachEntry(const ArchiveLibrary& lib, const ArchiveSource& source, Visit visit)
{
    auto reader = openSource(lib, source);
    if (!reader) return reader.error();
    archive* in = reader->get();
    const bool disk = source.kind == ArchiveSource::Kind::Folder;
    // A folder is read into an entry of ours; an archive lends its own.
    const EntryHandle owned(disk ? lib.archive_entry_new() : nullptr, lib.archive_entry_free);
    const std::string top = source.path.string();
    for (;;) {
        archive_entry* entry = owned.get();
        const int r = disk ? lib.archive_read_next_header2(in, entry)
                           : lib.archive_read_next_header(in, &entry);
        if (r == ARCHIVE_EOF) return {};
        if (r < ARCHIVE_WARN) return archiveError(lib, in, "read " + sourceName(source));
        if (disk) lib.archive_read_disk_descend(in);
        const char* name = lib.archive_entry_pathname(entry);
        std::string raw = name ? name : "";
        if (disk) raw = raw.size() > top.size() ? raw.substr(top.size()) : std::string();
        while (disk && !raw.empty() && raw.front() == '/')
            raw.erase(0, 1);
        if (auto e = visit(in, entry, raw)) return e;
    }
}

// A layer's whiteouts, applied to what the layers below left in `root`.
Status applyWhiteouts(const ArchiveLibrary& lib, const ArchiveSource& source, const fs::path& root,
                      ImportReport& report)
{
    return forEachEntry(lib, source, [&](archive*, archive_entry*, const std::string& raw) {
        std::string why;
        const auto rel = cleanPath(raw, why);
        if (!rel) return Status{};
        const std::string base = baseOf(*rel);
        if (base.rfind(kWhiteout, 0) != 0) return Status{};
        const std::string parent = parentOf(*rel);
        if (!realFolder(root, parent)) return Status{};
        std::error_code ec;
        if (base == kOpaque) {
            for (const auto& child : fs::directory_iterator(root / parent, ec))
                fs::remove_all(child.path(), ec);
            return Status{};
        }
        const std::string name = base.substr(kWhiteout.size());
        if (name.empty() || name == "." || name == "..") return Status{};
        const std::string target = parent.empty() ? name : parent + "/" + name;
        fs::remove_all(root / target, ec);
        if (ec) report.note("could not remove '" + target + "': " + ec.message());
        return Status{};
    });
}

const char* refusedType(unsigned type)
{
    switch (type) {
    case AE_IFCHR:
    case AE_IFBLK:
        return "a device node (the sandbox has its own /dev)";
    case AE_IFIFO:
        return "a FIFO";
    case AE_IFSOCK:
        return "a socket";
    default:
        return nullptr;
    }
}

} // namespace

Status unpackInto(const ArchiveSource& source, const fs::path& rootIn, bool layer,
                  ImportReport& report)
{
    auto lib = loadArchive();
    if (!lib) return lib.error();
    const ArchiveLibrary& L = **lib;
    std::error_code ec;
    // libarchive refuses to write through a link anywhere on the way: no link in the root's
    // own path, then.
    const fs::path root = fs::canonical(rootIn, ec);
    if (ec) return Error{ErrorCode::System, ec.value(), "unpack into '" + rootIn.string() + "'"};
    if (layer)
        if (auto e = applyWhiteouts(L, source, root, report)) return e;

    const WriteHandle writer(L.archive_write_disk_new(), L.archive_write_free);
    archive* out = writer.get();
    L.archive_write_disk_set_options(
        out, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_UNLINK |
                 ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT);
    auto status = forEachEntry(
        L, source, [&](archive* in, archive_entry* entry, const std::string& raw) -> Status {
            std::string why;
            const auto rel = cleanPath(raw, why);
            if (!rel) {
                report.note("skipped '" + raw + "': " + why);
                return {};
            }
            if (rel->empty()) return {}; // the root itself
            if (layer && baseOf(*rel).rfind(kWhiteout, 0) == 0) return {};
            const unsigned type = L.archive_entry_filetype(entry);
            if (const char* refused = refusedType(type)) {
                report.note("skipped '" + *rel + "': " + refused);
                return {};
            }
            const auto perm = static_cast<unsigned>(L.archive_entry_perm(entry));
            if (perm & (S_ISUID | S_ISGID)) {
                L.archive_entry_set_perm(entry, perm & ~static_cast<unsigned>(S_ISUID | S_ISGID));
                report.note("cleared setuid/setgid on '" + *rel + "'");
            }
            if (const char* link = L.archive_entry_hardlink(entry)) {
                const auto target = cleanPath(link, why);
                if (!target || target->empty()) {
                    report.note("skipped '" + *rel + "': a hard link to " +
                                (target ? std::string("the image's root") : why));
                    return {};
                }
                if (auto through = linkOnTheWay(root, *target)) {
                    report.note("skipped '" + *rel + "': a hard link through '" + *through +
                                "', a link");
                    return {};
                }
                L.archive_entry_set_hardlink(entry, (root / *target).c_str());
            }
            if (type == AE_IFLNK) {
                const char* target = L.archive_entry_symlink(entry);
                if (target && climbsAboveRoot(parentOf(*rel), target))
                    report.note("kept the link '" + *rel + "' → '" + target +
                                "': it climbs above the image's root, which ends it at the "
                                "sandbox's / when the image is in use");
            }
            if (auto link = linkOnTheWay(root, *rel)) {
                report.note("skipped '" + *rel + "': '" + *link +
                            "' is a link, and nothing is written through one");
                return {};
            }
            L.archive_entry_set_pathname(entry, (root / *rel).c_str());
            const int written = L.archive_write_header(out, entry);
            if (written < ARCHIVE_WARN) {
                const char* error = L.archive_error_string(out);
                report.note("skipped '" + *rel + "': " + (error ? error : "not written"));
                return {};
            }
            const void* block = nullptr;
            std::size_t size = 0;
            la_int64_t offset = 0;
            if (type == AE_IFREG) {
                int r;
                while ((r = L.archive_read_data_block(in, &block, &size, &offset)) == ARCHIVE_OK) {
                    if (size > source.maxBytes - std::min(source.maxBytes, report.bytes))
                        return Error{ErrorCode::InvalidInput, 0,
                                     sourceName(source) + " unpacks to more than " +
                                         std::to_string(source.maxBytes) + " bytes"};
                    if (L.archive_write_data_block(out, block, size, offset) < ARCHIVE_WARN)
                        return archiveError(L, out, "write '" + *rel + "'");
                    report.bytes += size;
                }
                if (r != ARCHIVE_EOF)
                    return archiveError(L, in, "read '" + *rel + "' from " + sourceName(source));
            }
            if (L.archive_write_finish_entry(out) < ARCHIVE_WARN)
                return archiveError(L, out, "write '" + *rel + "'");
            ++report.files;
            return {};
        });
    // Folders' own times and modes are set last, after their contents.
    if (L.archive_write_close(out) < ARCHIVE_WARN && !status)
        return archiveError(L, out, "finish unpacking " + sourceName(source));
    return status;
}

} // namespace sb
