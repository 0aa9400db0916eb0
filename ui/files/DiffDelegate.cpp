#include "DiffDelegate.h"

#include "DiffModel.h"

#include <QAbstractItemView>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

namespace sbui {

void DiffDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                         const QModelIndex& index) const
{
    painter->save();
    const QVariant background = index.data(Qt::BackgroundRole);
    if (background.isValid()) painter->fillRect(option.rect, background.value<QColor>());
    const QString text = index.data(Qt::DisplayRole).toString();
    QRect area = option.rect.adjusted(kCellPadding, 0, -kCellPadding, 0);
    if (shift > 0 && (index.column() == panColumns.first || index.column() == panColumns.second)) {
        painter->setClipRect(area);
        area.adjust(-shift, 0, 0, 0);
    }
    const QFontMetrics metrics(option.font);
    const auto cell = static_cast<DiffModel::Cell>(index.data(DiffModel::CellRole).toInt());
    const QColor word = cell == DiffModel::Cell::Added ? colors.addedWord : colors.removedWord;
    for (const QVariant& v : index.data(DiffModel::HighlightsRole).toList()) {
        const QPoint range = v.toPoint();
        const int x = area.left() + metrics.horizontalAdvance(text.left(range.x()));
        const int width = metrics.horizontalAdvance(text.mid(range.x(), range.y()));
        painter->fillRect(QRect(x, option.rect.top(), width, option.rect.height()), word);
    }
    const QVariant foreground = index.data(Qt::ForegroundRole);
    painter->setPen(foreground.isValid() ? foreground.value<QColor>()
                                         : option.palette.color(QPalette::Text));
    painter->setFont(option.font);
    const int align = index.data(Qt::TextAlignmentRole).toInt();
    // A line longer than its column (side by side) ends in "…"; its tooltip has it whole.
    painter->drawText(area, align | Qt::TextSingleLine,
                      metrics.elidedText(text, Qt::ElideRight, area.width()));
    painter->restore();
}

bool DiffDelegate::helpEvent(QHelpEvent* event, QAbstractItemView* view,
                             const QStyleOptionViewItem& option, const QModelIndex& index)
{
    const QString text = index.data(Qt::DisplayRole).toString();
    if (event->type() == QEvent::ToolTip && QFontMetrics(option.font).horizontalAdvance(text) >
                                                option.rect.width() - 2 * kCellPadding) {
        QToolTip::showText(event->globalPos(), text, view);
        return true;
    }
    return QStyledItemDelegate::helpEvent(event, view, option, index);
}

QSize DiffDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    const QFontMetrics metrics(option.font);
    return {metrics.horizontalAdvance(index.data().toString()) + 2 * kCellPadding,
            metrics.height() + 2};
}

} // namespace sbui
