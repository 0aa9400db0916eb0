// The rows of the diff view, unified or side by side: a header row per hunk, then its lines.
// Text comes with tabs expanded and the intra-line ranges moved to match.
#pragma once

#include "LineDiff.h"
#include "ReviewStyle.h"

#include <QAbstractTableModel>
#include <memory>
#include <vector>

namespace sbui {

class DiffModel : public QAbstractTableModel {
    Q_OBJECT

  public:
    enum class Layout { Unified, SideBySide };
    // Unified: old number, new number, sign, text. Side by side: number and text of each side.
    enum UnifiedColumn { OldNumberColumn, NewNumberColumn, SignColumn, TextColumn };
    enum SideColumn { LeftNumberColumn, LeftTextColumn, RightNumberColumn, RightTextColumn };
    enum class Cell { Context, Removed, Added, Blank, Hunk, Note };
    enum Role {
        CellRole = Qt::UserRole + 1, // int(Cell)
        HighlightsRole,              // QVariantList of QPoint(start, length) in the shown text
    };

    explicit DiffModel(QObject* parent = nullptr);

    // `context` unchanged lines around each change; a negative one shows the whole file.
    void setResult(std::shared_ptr<const diff::Result> result, Layout layout, int context);
    void clear();
    void setColors(const DiffColors& colors);

    Layout layout() const { return m_layout; }
    const diff::Result* result() const { return m_result.get(); }
    // The longest shown text, in characters after tab expansion.
    int maxTextLength() const { return m_maxTextLength; }
    int maxLineNumber() const;
    // A row as plain text: unified "-text"/"+text"/" text" or "@@ … @@"; side by side
    // "left | right" with "-" / "+" marks.
    QString rowText(int row) const;
    // The highlighted ranges of a row's text on one side (0 = left or unified, 1 = right).
    QList<diff::Range> rowHighlights(int row, int side) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

  private:
    struct Row {
        int left = -1;          // into result->lines
        int right = -1;         // the same as left in the unified layout
        int hunk = -1;          // >= 0: the header row of that hunk
        bool noNewline = false; // "No newline at end of file" after the line in `left`
    };
    void build(int context);
    QVariant cellData(const Row& row, int column, int role) const;
    QString lineText(int line) const;
    QList<diff::Range> lineHighlights(int line) const;
    Cell lineCell(int line) const;

    std::shared_ptr<const diff::Result> m_result;
    std::vector<diff::Hunk> m_hunks;
    std::vector<Row> m_rows;
    Layout m_layout = Layout::Unified;
    DiffColors m_colors;
    int m_maxTextLength = 0;
};

} // namespace sbui
