#include "Clipping.h"

#include <QAbstractButton>
#include <QAction>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QScrollArea>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QTabBar>
#include <QToolBar>
#include <QToolButton>

namespace sbgt {

QStringList clippedTexts(QWidget* root)
{
    QStringList out;
    auto place = [](const QWidget* w) {
        QStringList path;
        for (const QWidget* p = w; p; p = p->parentWidget())
            if (!p->objectName().isEmpty()) path.prepend(p->objectName());
        return QStringLiteral("%1 in %2")
            .arg(QString::fromLatin1(w->metaObject()->className()), path.join(u'/'));
    };
    for (QLabel* label : root->findChildren<QLabel*>()) {
        if (!label->isVisible() || label->wordWrap() || label->text().isEmpty() ||
            Qt::mightBeRichText(label->text()) ||
            label->sizePolicy().horizontalPolicy() == QSizePolicy::Ignored)
            continue;
        QString shown = label->text(); // a mnemonic's & is not drawn
        if (label->buddy())
            shown.replace(QRegularExpression(QStringLiteral("&(.)")), QStringLiteral("\\1"));
        const int need = label->fontMetrics().horizontalAdvance(shown);
        if (label->contentsRect().width() < need)
            out << QStringLiteral("label \"%1\" (%2 of %3 px, %4)")
                       .arg(label->text())
                       .arg(label->contentsRect().width())
                       .arg(need)
                       .arg(place(label));
    }
    for (QAbstractButton* button : root->findChildren<QAbstractButton*>()) {
        if (!button->isVisible() || button->text().isEmpty() || button->inherits("QTabBar") ||
            (qobject_cast<QToolButton*>(button) &&
             qobject_cast<QToolButton*>(button)->toolButtonStyle() == Qt::ToolButtonIconOnly))
            continue;
        if (button->width() < button->sizeHint().width())
            out << QStringLiteral("button \"%1\" (%2 of %3 px, %4)")
                       .arg(button->text())
                       .arg(button->width())
                       .arg(button->sizeHint().width())
                       .arg(place(button));
    }
    for (QComboBox* box : root->findChildren<QComboBox*>()) {
        if (!box->isVisible() || box->isEditable()) continue;
        QStyleOptionComboBox option;
        option.initFrom(box);
        const int field =
            box->style()
                ->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, box)
                .width();
        for (int i = 0; i < box->count(); ++i) {
            const int need = box->fontMetrics().horizontalAdvance(box->itemText(i)) +
                             (box->itemIcon(i).isNull() ? 0 : box->iconSize().width() + 4);
            if (field < need)
                out << QStringLiteral("combo item \"%1\" (%2 of %3 px, %4)")
                           .arg(box->itemText(i))
                           .arg(field)
                           .arg(need)
                           .arg(place(box));
        }
    }
    for (QHeaderView* header : root->findChildren<QHeaderView*>()) {
        if (!header->isVisible() || !header->model()) continue;
        for (int i = 0; i < header->count(); ++i) {
            if (header->isSectionHidden(i)) continue;
            const QString title = header->model()->headerData(i, header->orientation()).toString();
            const int need = header->fontMetrics().horizontalAdvance(title) + 8;
            if (header->orientation() == Qt::Horizontal && header->sectionSize(i) < need)
                out << QStringLiteral("column \"%1\" (%2 of %3 px, %4)")
                           .arg(title)
                           .arg(header->sectionSize(i))
                           .arg(need)
                           .arg(place(header));
        }
    }
    for (QTabBar* bar : root->findChildren<QTabBar*>()) {
        if (!bar->isVisible()) continue;
        const int space = bar->style()->pixelMetric(QStyle::PM_TabBarTabHSpace, nullptr, bar);
        for (int i = 0; i < bar->count(); ++i) {
            if (!bar->isTabVisible(i)) continue;
            const QRect tab = bar->tabRect(i);
            // Its text whole: an elided "Ter…" is as cut as a tab outside the bar.
            const int need = bar->fontMetrics().horizontalAdvance(bar->tabText(i)) + space +
                             (bar->tabIcon(i).isNull() ? 0 : bar->iconSize().width() + 4);
            if (!bar->rect().contains(tab) || tab.width() < need)
                out << QStringLiteral("tab \"%1\" (%2 of %3 px, %4)")
                           .arg(bar->tabText(i))
                           .arg(tab.width())
                           .arg(need)
                           .arg(place(bar));
        }
    }
    // Buttons a splitter or a too-small parent hides: drawn, but not where they can be seen.
    for (QAbstractButton* button : root->findChildren<QAbstractButton*>()) {
        if (!button->isVisible() || button->inherits("QTabBar") ||
            qobject_cast<QToolBar*>(button->parentWidget()))
            continue;
        bool scrolls = false;
        for (QWidget* p = button->parentWidget(); p && p != root; p = p->parentWidget())
            scrolls = scrolls || qobject_cast<QAbstractScrollArea*>(p) != nullptr;
        if (scrolls) continue;
        QRect shown = button->rect();
        for (QWidget* w = button; w->parentWidget() && w != root; w = w->parentWidget()) {
            shown.translate(w->pos());
            shown &= w->parentWidget()->rect();
        }
        const int want = button->width() * button->height();
        if (shown.width() * shown.height() < want)
            out << QStringLiteral("button \"%1\" hidden (%2 of %3 px² seen, %4)")
                       .arg(button->text().isEmpty() ? button->toolTip() : button->text())
                       .arg(shown.width() * shown.height())
                       .arg(want)
                       .arg(place(button));
    }
    // A toolbar that put actions behind its » menu.
    for (QToolBar* bar : root->findChildren<QToolBar*>()) {
        if (!bar->isVisible()) continue;
        QStringList hidden;
        for (QAction* action : bar->actions()) {
            QWidget* w = bar->widgetForAction(action);
            if (action->isVisible() && !action->isSeparator() && w && !w->isVisible())
                hidden << action->text().remove(QLatin1Char('&'));
        }
        if (!hidden.isEmpty())
            out << QStringLiteral("toolbar actions behind » (%1, %2)")
                       .arg(hidden.join(QStringLiteral(", ")), place(bar));
    }
    return out;
}

} // namespace sbgt
