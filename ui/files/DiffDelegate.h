// Draws a diff cell: its background, the changed characters a shade stronger, then the text.
// Side by side, the text of both sides can be panned together (`shift` pixels to the left), so a
// line longer than its side can be read without pushing the other side out of view.
#pragma once

#include "ReviewStyle.h"

#include <QStyledItemDelegate>
#include <utility>

namespace sbui {

class DiffDelegate : public QStyledItemDelegate {
  public:
    static constexpr int kCellPadding = 4;

    using QStyledItemDelegate::QStyledItemDelegate;
    DiffColors colors;
    int shift = 0;
    std::pair<int, int> panColumns{-1, -1}; // the columns `shift` applies to

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    bool helpEvent(QHelpEvent* event, QAbstractItemView* view, const QStyleOptionViewItem& option,
                   const QModelIndex& index) override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

} // namespace sbui
