#include "LineDiff.h"

#include <QHash>
#include <algorithm>
#include <dtl/dtl.hpp>
#include <string>

namespace sbui::diff {
namespace {

// dtl costs about (lines compared) x (lines deleted). Past this many steps the changed middle
// shows as replaced wholesale: a slow exact answer would hold the diff view for minutes.
constexpr double kMaxLineWork = 4e8;
// Intra-line comparison is for code lines, not for minified files on one line.
constexpr int kMaxIntraLength = 2000;

// Marks a last line without a newline, so "b" and "b\n" differ as diff -u says they do.
const QChar kNoNewline(0xFFFF);

QString withoutWhitespace(const QString& text, std::vector<int>* positions = nullptr)
{
    QString out;
    out.reserve(text.size());
    for (int i = 0; i < text.size(); ++i) {
        if (text[i].isSpace()) continue;
        out += text[i];
        if (positions) positions->push_back(i);
    }
    return out;
}

// The positions of `a` and `b` that an edit script deletes and adds.
template <class Sequence>
void editedPositions(const Sequence& a, const Sequence& b, std::vector<int>& deleted,
                     std::vector<int>& added)
{
    dtl::Diff<typename Sequence::value_type, Sequence> d(a, b);
    d.compose();
    int i = 0, j = 0;
    for (const auto& [element, info] : d.getSes().getSequence()) {
        (void)element;
        if (info.type == dtl::SES_COMMON) {
            ++i, ++j;
        } else if (info.type == dtl::SES_DELETE) {
            deleted.push_back(i++);
        } else {
            added.push_back(j++);
        }
    }
}

// Sorted positions as ranges, runs a gap of one or two unchanged characters apart joined:
// "x|y|z" reads better highlighted whole than in five pieces.
QList<Range> toRanges(const std::vector<int>& positions, const std::vector<int>* map)
{
    QList<Range> out;
    for (int p : positions) {
        int at = map ? (*map)[static_cast<std::size_t>(p)] : p;
        if (!out.isEmpty() && at - (out.last().start + out.last().length) <= 2)
            out.last().length = at + 1 - out.last().start;
        else
            out.append(Range{at, 1});
    }
    return out;
}

struct Builder {
    Result& r;
    std::vector<int> removed; // old indexes of the block being collected
    std::vector<int> added;

    void context(int oldIndex, int newIndex)
    {
        flush();
        r.lines.push_back(Line{LineKind::Context, oldIndex, newIndex, {}});
    }

    // A block of removed lines and the added ones that replaced them; the k-th of each face
    // one another, and only such pairs get intra-line highlights.
    void flush()
    {
        const std::size_t firstRemoved = r.lines.size();
        for (int i : removed)
            r.lines.push_back(Line{LineKind::Removed, i, -1, {}});
        const std::size_t firstAdded = r.lines.size();
        for (int j : added)
            r.lines.push_back(Line{LineKind::Added, -1, j, {}});
        r.removed += static_cast<int>(removed.size());
        r.added += static_cast<int>(added.size());
        for (std::size_t k = 0; k < std::min(removed.size(), added.size()); ++k) {
            Line& before = r.lines[firstRemoved + k];
            Line& after = r.lines[firstAdded + k];
            intraBudget -= r.text(before).size() + r.text(after).size();
            if (intraBudget < 0) break;
            auto [a, b] = intraLine(r.oldLines[before.oldIndex], r.newLines[after.newIndex],
                                    ignoreWhitespace);
            before.highlights = a;
            after.highlights = b;
        }
        removed.clear();
        added.clear();
    }

    bool ignoreWhitespace = false;
    // Characters left to compare within lines: a huge rewrite shows without highlights rather
    // than late.
    qsizetype intraBudget = 4'000'000;
};

} // namespace

const QString& Result::text(const Line& line) const
{
    return line.kind == LineKind::Removed ? oldLines[line.oldIndex] : newLines[line.newIndex];
}

QStringList splitLines(const QString& text, bool* endsWithNewline)
{
    QStringList lines = text.split(QLatin1Char('\n'));
    bool ends = text.isEmpty() || text.endsWith(QLatin1Char('\n'));
    if (ends) lines.removeLast(); // the empty piece after the last newline
    if (endsWithNewline) *endsWithNewline = ends;
    return lines;
}

Result compare(const QString& before, const QString& after, const Options& options)
{
    Result r;
    r.oldLines = splitLines(before, &r.oldEndsWithNewline);
    r.newLines = splitLines(after, &r.newEndsWithNewline);

    // Lines become numbers (equal keys, equal numbers) so the edit script compares integers.
    QHash<QString, int> ids;
    auto keys = [&](const QStringList& lines, bool endsWithNewline) {
        std::vector<int> out;
        out.reserve(static_cast<std::size_t>(lines.size()));
        for (int i = 0; i < lines.size(); ++i) {
            QString key = options.ignoreWhitespace ? withoutWhitespace(lines[i]) : lines[i];
            if (i == lines.size() - 1 && !endsWithNewline) key += kNoNewline;
            auto it = ids.find(key);
            if (it == ids.end()) it = ids.insert(key, static_cast<int>(ids.size()));
            out.push_back(it.value());
        }
        return out;
    };
    const std::vector<int> a = keys(r.oldLines, r.oldEndsWithNewline);
    const std::vector<int> b = keys(r.newLines, r.newEndsWithNewline);

    std::size_t prefix = 0;
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix])
        ++prefix;
    std::size_t suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
           a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
        ++suffix;

    Builder builder{r, {}, {}, options.ignoreWhitespace};
    r.lines.reserve(a.size() + b.size() - prefix - suffix);
    for (std::size_t i = 0; i < prefix; ++i)
        builder.context(static_cast<int>(i), static_cast<int>(i));

    const std::vector<int> midA(a.begin() + static_cast<long>(prefix),
                                a.end() - static_cast<long>(suffix));
    const std::vector<int> midB(b.begin() + static_cast<long>(prefix),
                                b.end() - static_cast<long>(suffix));
    // Lines of one side found nowhere in the other must be deleted (or added): a lower bound
    // of the edit script's length, cheap to know before paying for the script.
    auto unmatched = [](const std::vector<int>& from, const std::vector<int>& in) {
        std::vector<int> sorted = in;
        std::sort(sorted.begin(), sorted.end());
        return static_cast<double>(std::count_if(from.begin(), from.end(), [&](int id) {
            return !std::binary_search(sorted.begin(), sorted.end(), id);
        }));
    };
    const double size = static_cast<double>(midA.size() + midB.size());
    r.coarse = !midA.empty() && !midB.empty() &&
               size * (unmatched(midA, midB) + unmatched(midB, midA) + 1) > kMaxLineWork;
    const int base = static_cast<int>(prefix);
    if (r.coarse) {
        builder.intraBudget = 0;
        for (std::size_t i = 0; i < midA.size(); ++i)
            builder.removed.push_back(base + static_cast<int>(i));
        for (std::size_t j = 0; j < midB.size(); ++j)
            builder.added.push_back(base + static_cast<int>(j));
    } else if (!midA.empty() || !midB.empty()) {
        dtl::Diff<int, std::vector<int>> d(midA, midB);
        d.compose();
        int i = base, j = base;
        for (const auto& [id, info] : d.getSes().getSequence()) {
            (void)id;
            if (info.type == dtl::SES_COMMON)
                builder.context(i++, j++);
            else if (info.type == dtl::SES_DELETE)
                builder.removed.push_back(i++);
            else
                builder.added.push_back(j++);
        }
    }
    for (std::size_t k = suffix; k > 0; --k)
        builder.context(static_cast<int>(a.size() - k), static_cast<int>(b.size() - k));
    builder.flush();
    return r;
}

std::pair<QList<Range>, QList<Range>> intraLine(const QString& a, const QString& b,
                                                bool ignoreWhitespace)
{
    if (a.size() > kMaxIntraLength || b.size() > kMaxIntraLength) return {};
    std::vector<int> mapA, mapB;
    const QString sa = ignoreWhitespace ? withoutWhitespace(a, &mapA) : a;
    const QString sb = ignoreWhitespace ? withoutWhitespace(b, &mapB) : b;
    std::u16string ua(reinterpret_cast<const char16_t*>(sa.utf16()),
                      static_cast<std::size_t>(sa.size()));
    std::u16string ub(reinterpret_cast<const char16_t*>(sb.utf16()),
                      static_cast<std::size_t>(sb.size()));
    std::vector<int> deleted, added;
    editedPositions(ua, ub, deleted, added);
    if (deleted.empty() && added.empty()) return {};
    // Mostly rewritten: the whole line's colour already says so, and speckles would not help.
    const std::size_t common = ua.size() - deleted.size();
    if (common * 5 < std::max(ua.size(), ub.size()) * 2) return {};
    return {toRanges(deleted, ignoreWhitespace ? &mapA : nullptr),
            toRanges(added, ignoreWhitespace ? &mapB : nullptr)};
}

std::vector<Hunk> hunks(const Result& result, int context)
{
    const auto& lines = result.lines;
    const int n = static_cast<int>(lines.size());
    std::vector<Hunk> out;
    int i = 0;
    while (i < n) {
        if (lines[i].kind == LineKind::Context) {
            ++i;
            continue;
        }
        Hunk h;
        h.first = std::max(0, i - context);
        int last = i;
        int k = i;
        while (k < n) {
            if (lines[k].kind != LineKind::Context) {
                last = k++;
                continue;
            }
            int run = 0;
            while (k + run < n && lines[k + run].kind == LineKind::Context)
                ++run;
            if (k + run >= n || run > 2 * context) break;
            k += run;
        }
        h.last = std::min(n - 1, last + context);
        out.push_back(h);
        i = h.last + 1;
    }
    // The header's numbers: lines of each side before the hunk, and in it.
    int oldBefore = 0, newBefore = 0, at = 0;
    for (Hunk& h : out) {
        for (; at < h.first; ++at) {
            oldBefore += lines[at].oldIndex >= 0;
            newBefore += lines[at].newIndex >= 0;
        }
        for (int j = h.first; j <= h.last; ++j) {
            h.oldCount += lines[j].oldIndex >= 0;
            h.newCount += lines[j].newIndex >= 0;
        }
        h.oldStart = h.oldCount ? oldBefore + 1 : oldBefore;
        h.newStart = h.newCount ? newBefore + 1 : newBefore;
    }
    return out;
}

std::vector<SideRow> sideBySide(const Result& result, int first, int last)
{
    const auto& lines = result.lines;
    std::vector<SideRow> rows;
    int i = first;
    while (i <= last) {
        if (lines[i].kind == LineKind::Context) {
            rows.push_back(SideRow{i, i});
            ++i;
            continue;
        }
        std::vector<int> removed, added;
        while (i <= last && lines[i].kind == LineKind::Removed)
            removed.push_back(i++);
        while (i <= last && lines[i].kind == LineKind::Added)
            added.push_back(i++);
        for (std::size_t k = 0; k < std::max(removed.size(), added.size()); ++k)
            rows.push_back(
                SideRow{k < removed.size() ? removed[k] : -1, k < added.size() ? added[k] : -1});
    }
    return rows;
}

QString unifiedText(const Result& result, int context, const QString& oldLabel,
                    const QString& newLabel)
{
    if (!result.hasChanges()) return {};
    auto range = [](int start, int count) {
        return count == 1 ? QString::number(start) : QStringLiteral("%1,%2").arg(start).arg(count);
    };
    QString out = QStringLiteral("--- %1\n+++ %2\n").arg(oldLabel, newLabel);
    const int lastOld = static_cast<int>(result.oldLines.size()) - 1;
    const int lastNew = static_cast<int>(result.newLines.size()) - 1;
    for (const Hunk& h : hunks(result, context)) {
        out += QStringLiteral("@@ -%1 +%2 @@\n")
                   .arg(range(h.oldStart, h.oldCount), range(h.newStart, h.newCount));
        for (int i = h.first; i <= h.last; ++i) {
            const Line& line = result.lines[i];
            const char sign = line.kind == LineKind::Context   ? ' '
                              : line.kind == LineKind::Removed ? '-'
                                                               : '+';
            out += QLatin1Char(sign) + result.text(line) + QLatin1Char('\n');
            bool oldEnd = line.oldIndex == lastOld && !result.oldEndsWithNewline;
            bool newEnd = line.newIndex == lastNew && !result.newEndsWithNewline;
            if ((line.kind == LineKind::Added && newEnd) ||
                (line.kind != LineKind::Added && oldEnd))
                out += QStringLiteral("\\ No newline at end of file\n");
        }
    }
    return out;
}

} // namespace sbui::diff
