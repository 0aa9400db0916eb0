#include "MessageBar.h"

#include "files/ReviewStyle.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace sbui {

MessageBar::MessageBar(QWidget* parent)
    : QFrame(parent), m_icon(new QLabel(this)), m_text(new QLabel(this)),
      m_button(new QToolButton(this))
{
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::PlainText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_icon->setAlignment(Qt::AlignTop);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    layout->addWidget(m_icon);
    layout->addWidget(m_text, 1);
    m_button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_button->hide();
    layout->addWidget(m_button, 0, Qt::AlignVCenter);
    hide();
}

void MessageBar::showMessage(Kind kind, const QString& text, QAction* action)
{
    m_kind = kind;
    m_text->setText(text);
    if (m_button->defaultAction()) m_button->removeAction(m_button->defaultAction());
    if (action) m_button->setDefaultAction(action);
    m_button->setVisible(action != nullptr);
    applyStyle();
    show();
}

void MessageBar::clearMessage()
{
    m_text->clear();
    m_button->hide();
    hide();
}

QString MessageBar::text() const
{
    return isHidden() ? QString() : m_text->text();
}

void MessageBar::changeEvent(QEvent* event)
{
    QFrame::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        // Only the background is ours; taking it from the parent again follows a theme change.
        if (!m_text->text().isEmpty())
            QMetaObject::invokeMethod(this, &MessageBar::applyStyle, Qt::QueuedConnection);
    }
}

void MessageBar::applyStyle()
{
    const QPalette base = parentWidget() ? parentWidget()->palette() : QPalette();
    QPalette tinted = base;
    tinted.setColor(QPalette::Window, m_kind == Kind::Info
                                          ? base.color(QPalette::AlternateBase)
                                          : ReviewStyle::attentionBackground(base));
    if (palette() != tinted) setPalette(tinted);
    const auto pixmap = m_kind == Kind::Error     ? QStyle::SP_MessageBoxCritical
                        : m_kind == Kind::Warning ? QStyle::SP_MessageBoxWarning
                                                  : QStyle::SP_MessageBoxInformation;
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    m_icon->setPixmap(style()->standardIcon(pixmap, nullptr, this).pixmap(size, size));
}

} // namespace sbui
