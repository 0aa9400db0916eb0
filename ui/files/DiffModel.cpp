#include "DiffModel.h"

#include <QPoint>
#include <algorithm>

namespace sbui {
namespace {

constexpr int kTabWidth = 4;
// Context enough to cover any file: the whole file as one hunk.
constexpr int kWholeFile = 1 << 28;

// Tabs to spaces up to the next tab stop; positions[i] is where character i lands.
QString expandTabs(const QString& text, std::vector<int>* positions = nullptr)
{
    if (!text.contains(QLatin1Char('\t')) && !positions) return text;
    QString out;
    out.reserve(text.size());
    for (QChar c : text) {
        if (positions) positions->push_back(static_cast<int>(out.size()));
        if (c == QLatin1Char('\t'))
            out += QString(kTabWidth - out.size() % kTabWidth, QLatin1Char(' '));
        else
            out += c;
    }
    if (positions) positions->push_back(static_cast<int>(out.size()));
    return out;
}

} // namespace

DiffModel::DiffModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiffModel::setResult(std::shared_ptr<const diff::Result> result, Layout layout, int context)
{
    beginResetModel();
    m_result = std::move(result);
    m_layout = layout;
    build(context < 0 ? kWholeFile : context);
    endResetModel();
}

void DiffModel::clear()
{
    beginResetModel();
    m_result.reset();
    m_hunks.clear();
    m_rows.clear();
    m_maxTextLength = 0;
    endResetModel();
}

void DiffModel::setColors(const DiffColors& colors)
{
    m_colors = colors;
    if (!m_rows.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

void DiffModel::build(int context)
{
    m_rows.clear();
    m_hunks.clear();
    m_maxTextLength = 0;
    if (!m_result) return;
    const diff::Result& r = *m_result;
    m_hunks = diff::hunks(r, context);
    const int lastOld = static_cast<int>(r.oldLines.size()) - 1;
    const int lastNew = static_cast<int>(r.newLines.size()) - 1;
    for (std::size_t h = 0; h < m_hunks.size(); ++h) {
        const diff::Hunk& hunk = m_hunks[h];
        m_rows.push_back(Row{-1, -1, static_cast<int>(h), false});
        if (m_layout == Layout::SideBySide) {
            for (const auto& side : diff::sideBySide(r, hunk.first, hunk.last))
                m_rows.push_back(Row{side.left, side.right, -1, false});
            continue;
        }
        for (int i = hunk.first; i <= hunk.last; ++i) {
            m_rows.push_back(Row{i, i, -1, false});
            const diff::Line& line = r.lines[i];
            if ((line.kind == diff::LineKind::Added && line.newIndex == lastNew &&
                 !r.newEndsWithNewline) ||
                (line.kind != diff::LineKind::Added && line.oldIndex == lastOld &&
                 !r.oldEndsWithNewline))
                m_rows.push_back(Row{i, i, -1, true});
        }
    }
    for (const Row& row : m_rows) {
        for (int line : {row.left, row.right})
            if (line >= 0)
                m_maxTextLength = std::max(
                    m_maxTextLength, static_cast<int>(expandTabs(r.text(r.lines[line])).size()));
    }
    m_maxTextLength = std::max(m_maxTextLength, 40);
}

int DiffModel::maxLineNumber() const
{
    if (!m_result) return 0;
    return static_cast<int>(std::max(m_result->oldLines.size(), m_result->newLines.size()));
}

int DiffModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int DiffModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : 4;
}

DiffModel::Cell DiffModel::lineCell(int line) const
{
    if (line < 0) return Cell::Blank;
    switch (m_result->lines[line].kind) {
    case diff::LineKind::Context:
        return Cell::Context;
    case diff::LineKind::Removed:
        return Cell::Removed;
    case diff::LineKind::Added:
        return Cell::Added;
    }
    return Cell::Context;
}

QString DiffModel::lineText(int line) const
{
    return m_result->text(m_result->lines[line]);
}

QList<diff::Range> DiffModel::lineHighlights(int line) const
{
    return m_result->lines[line].highlights;
}

QString DiffModel::rowText(int row) const
{
    const Row& r = m_rows[static_cast<std::size_t>(row)];
    if (r.hunk >= 0) {
        const int column = m_layout == Layout::Unified ? static_cast<int>(TextColumn)
                                                       : static_cast<int>(LeftTextColumn);
        return data(index(row, column)).toString();
    }
    if (r.noNewline) return QStringLiteral("\\ No newline at end of file");
    auto marked = [&](int line, bool oldSide) -> QString {
        if (line < 0) return {};
        const diff::Line& l = m_result->lines[line];
        const QChar sign = l.kind == diff::LineKind::Removed ? u'-'
                           : l.kind == diff::LineKind::Added ? u'+'
                                                             : u' ';
        const QString& text = oldSide && l.kind == diff::LineKind::Context
                                  ? m_result->oldLines[l.oldIndex]
                                  : m_result->text(l);
        return sign + text;
    };
    if (m_layout == Layout::Unified) return marked(r.left, false);
    return marked(r.left, true) + QStringLiteral(" | ") + marked(r.right, false);
}

QList<diff::Range> DiffModel::rowHighlights(int row, int side) const
{
    const Row& r = m_rows[static_cast<std::size_t>(row)];
    const int line = side == 0 ? r.left : r.right;
    if (r.hunk >= 0 || r.noNewline || line < 0) return {};
    return lineHighlights(line);
}

QVariant DiffModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_result) return {};
    const Row& row = m_rows[static_cast<std::size_t>(index.row())];
    return cellData(row, index.column(), role);
}

QVariant DiffModel::cellData(const Row& row, int column, int role) const
{
    const bool unified = m_layout == Layout::Unified;
    const bool isNumber = unified ? column == OldNumberColumn || column == NewNumberColumn
                                  : column == LeftNumberColumn || column == RightNumberColumn;
    const bool isText =
        unified ? column == TextColumn : column == LeftTextColumn || column == RightTextColumn;
    const bool oldSide = unified ? column == OldNumberColumn : column <= LeftTextColumn;

    Cell cell;
    int line = -1;
    if (row.hunk >= 0) {
        cell = Cell::Hunk;
    } else if (row.noNewline) {
        cell = Cell::Note;
    } else {
        line = unified || oldSide ? row.left : row.right;
        cell = lineCell(line);
    }

    switch (role) {
    case CellRole:
        return static_cast<int>(cell);
    case Qt::BackgroundRole:
        switch (cell) {
        case Cell::Removed:
            return m_colors.removedLine;
        case Cell::Added:
            return m_colors.addedLine;
        case Cell::Blank:
            return m_colors.blank;
        case Cell::Hunk:
            return m_colors.hunk;
        default:
            return {};
        }
    case Qt::ForegroundRole:
        if (isNumber || cell == Cell::Hunk || cell == Cell::Note) return m_colors.lineNumber;
        return {};
    case Qt::TextAlignmentRole:
        return isNumber ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                        : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case HighlightsRole: {
        if (!isText || line < 0) return {};
        const QList<diff::Range> ranges = lineHighlights(line);
        if (ranges.isEmpty()) return {};
        std::vector<int> positions;
        expandTabs(lineText(line), &positions);
        QVariantList out;
        for (const diff::Range& range : ranges) {
            const int start = positions[static_cast<std::size_t>(range.start)];
            const int end = positions[static_cast<std::size_t>(range.start + range.length)];
            out.append(QPoint(start, end - start));
        }
        return out;
    }
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }

    if (cell == Cell::Hunk) {
        if (!(unified ? column == TextColumn : column == LeftTextColumn)) return {};
        const diff::Hunk& h = m_hunks[static_cast<std::size_t>(row.hunk)];
        auto range = [](int start, int count) {
            return count == 1 ? QString::number(start)
                              : QStringLiteral("%1,%2").arg(start).arg(count);
        };
        return QStringLiteral("@@ -%1 +%2 @@")
            .arg(range(h.oldStart, h.oldCount), range(h.newStart, h.newCount));
    }
    if (cell == Cell::Note) return isText ? tr("No newline at end of file") : QVariant();
    if (line < 0) return {};
    const diff::Line& l = m_result->lines[line];
    if (isNumber) {
        const int number =
            (unified ? column == OldNumberColumn : oldSide) ? l.oldIndex : l.newIndex;
        return number >= 0 ? QVariant(number + 1) : QVariant();
    }
    if (unified && column == SignColumn)
        return l.kind == diff::LineKind::Removed ? QStringLiteral("-")
               : l.kind == diff::LineKind::Added ? QStringLiteral("+")
                                                 : QString();
    // Side by side, an unchanged line shows each side's own text (they differ in white space
    // when that is ignored).
    if (!unified && oldSide && l.kind == diff::LineKind::Context)
        return expandTabs(m_result->oldLines[l.oldIndex]);
    return expandTabs(lineText(line));
}

} // namespace sbui
