#include "WorkspaceScan.h"

#include "ConflictText.h"
#include "base/Paths.h"

#include <QFile>
#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace sbui {

WorkspaceScan scanWorkspace(const std::string& upper, const std::string& project,
                            qint64 sessionStartNs)
{
    WorkspaceScan scan;
    auto changes = sb::listChanges(upper, project);
    if (!changes) {
        scan.error = QString::fromStdString(changes.error().describe());
        return scan;
    }
    auto rules = sb::sessionRunLaterRules(fs::path(upper).parent_path());
    if (!rules) {
        scan.error = QString::fromStdString(rules.error().describe());
        return scan;
    }
    sb::markRunLater(*changes, *rules, project, sb::homeDirectory());
    const auto& list = *changes;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const sb::Change& c = list[i];
        const QString path = QString::fromStdString(c.path);
        ChangeEntry entry;
        entry.kind = c.kind;
        entry.isDirectory = c.type == sb::EntryType::Directory;
        // Sorted a folder before its contents: a folder followed by its own contents holds
        // changes, and the user counts those rather than the folder.
        entry.leaf =
            !(entry.isDirectory && i + 1 < list.size() && list[i + 1].path.size() > c.path.size() &&
              list[i + 1].path.compare(0, c.path.size(), c.path) == 0 &&
              list[i + 1].path[c.path.size()] == '/');
        scan.changes.insert(path, entry);
        if (c.runLater) scan.runLater.insert(path, QString::fromStdString(c.runLater->reason));
        scan.paths.append(path);

        qsizetype start = 0;
        QString parent;
        while (true) {
            qsizetype slash = path.indexOf(QLatin1Char('/'), start);
            bool last = slash < 0;
            QString name = path.mid(start, last ? -1 : slash - start);
            scan.children[parent].insert(name, last ? entry.isDirectory : true);
            if (entry.leaf) ++scan.counts[parent];
            if (last) break;
            parent = path.left(slash);
            start = slash + 1;
        }
    }

    sb::ApplyOptions options;
    options.sessionStartNs = sessionStartNs;
    options.dryRun = true;
    options.runLater = std::move(*rules);
    auto report = sb::applyChanges(upper, project, options);
    if (report) {
        for (const auto& issue : report->conflicts)
            scan.conflicts.insert(QString::fromStdString(issue.path), ConflictText::of(issue));
    }
    return scan;
}

namespace {

// Natural order, as file managers sort: runs of digits compare by their value (f2 before f10),
// the rest case-insensitively. (QCollator's numeric mode needs ICU, which this Qt may lack.)
int naturalCompare(const QString& a, const QString& b)
{
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].isDigit() && b[j].isDigit()) {
            qsizetype ei = i, ej = j;
            while (ei < a.size() && a[ei].isDigit())
                ++ei;
            while (ej < b.size() && b[ej].isDigit())
                ++ej;
            // Leading zeros aside, a longer run is a larger number.
            qsizetype si = i, sj = j;
            while (si + 1 < ei && a[si] == u'0')
                ++si;
            while (sj + 1 < ej && b[sj] == u'0')
                ++sj;
            if (ei - si != ej - sj) return ei - si < ej - sj ? -1 : 1;
            if (const int c =
                    QStringView(a).mid(si, ei - si).compare(QStringView(b).mid(sj, ej - sj));
                c != 0)
                return c;
            i = ei;
            j = ej;
            continue;
        }
        const QChar x = a[i].toCaseFolded(), y = b[j].toCaseFolded();
        if (x != y) return x < y ? -1 : 1;
        ++i;
        ++j;
    }
    return i < a.size() ? 1 : j < b.size() ? -1 : 0;
}

} // namespace

bool entryLess(bool aIsDirectory, const QString& a, bool bIsDirectory, const QString& b)
{
    if (aIsDirectory != bIsDirectory) return aIsDirectory;
    const int c = naturalCompare(a, b);
    return c != 0 ? c < 0 : a < b;
}

DirListing listProjectDirectory(const std::string& project, const QString& path)
{
    DirListing listing;
    listing.path = path;
    std::error_code ec;
    fs::path dir = project;
    if (!path.isEmpty()) {
        // The tree shows the project, never what a symlink in it points to.
        for (const QString& part : path.split(QLatin1Char('/'))) {
            dir /= QFile::encodeName(part).toStdString();
            if (fs::symlink_status(dir, ec).type() != fs::file_type::directory) return listing;
        }
    }
    for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        std::error_code typeError;
        bool isDirectory = it->symlink_status(typeError).type() == fs::file_type::directory;
        listing.entries.push_back(
            {QFile::decodeName(it->path().filename().string().c_str()), isDirectory});
    }
    std::sort(listing.entries.begin(), listing.entries.end(),
              [](const DirEntry& a, const DirEntry& b) {
                  return entryLess(a.isDirectory, a.name, b.isDirectory, b.name);
              });
    return listing;
}

} // namespace sbui
