#include "TerminalSearchBar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

namespace sbui {

TerminalSearchBar::TerminalSearchBar(QWidget* parent)
    : QFrame(parent), m_field(new QLineEdit(this)), m_older(new QToolButton(this)),
      m_newer(new QToolButton(this)), m_status(new QLabel(this))
{
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setObjectName(QStringLiteral("terminalSearchBar"));

    m_field->setPlaceholderText(tr("Find in terminal"));
    m_field->setClearButtonEnabled(true);
    m_field->setMinimumWidth(fontMetrics().averageCharWidth() * 24);

    m_older->setArrowType(Qt::UpArrow);
    m_older->setToolTip(tr("Find older (Enter)"));
    m_older->setAccessibleName(tr("Find older"));
    m_newer->setArrowType(Qt::DownArrow);
    m_newer->setToolTip(tr("Find newer (Shift+Enter)"));
    m_newer->setAccessibleName(tr("Find newer"));
    auto* close = new QToolButton(this);
    close->setText(tr("Close"));
    close->setToolTip(tr("Close the find bar (Escape)"));
    close->setAutoRaise(true);

    m_status->setText(tr("Not found"));
    m_status->setVisible(false);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->setSpacing(2);
    layout->addWidget(m_field);
    layout->addWidget(m_status);
    layout->addWidget(m_older);
    layout->addWidget(m_newer);
    layout->addWidget(close);

    connect(m_field, &QLineEdit::textEdited, this, &TerminalSearchBar::textEdited);
    m_field->installEventFilter(this);
    connect(m_older, &QToolButton::clicked, this,
            [this] { Q_EMIT findRequested(m_field->text(), true); });
    connect(m_newer, &QToolButton::clicked, this,
            [this] { Q_EMIT findRequested(m_field->text(), false); });
    connect(close, &QToolButton::clicked, this, [this] {
        hide();
        Q_EMIT closed();
    });
}

QString TerminalSearchBar::text() const
{
    return m_field->text();
}

void TerminalSearchBar::setText(const QString& text)
{
    m_field->setText(text);
}

void TerminalSearchBar::activate()
{
    show();
    raise();
    m_field->setFocus(Qt::ShortcutFocusReason);
    m_field->selectAll();
}

void TerminalSearchBar::setNotFound(bool notFound)
{
    m_status->setVisible(notFound);
}

// Enter finds older, Shift+Enter newer, Escape closes. Taken before QLineEdit, which reports
// Return with or without Shift alike.
bool TerminalSearchBar::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_field && event->type() == QEvent::KeyPress) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Escape) {
            hide();
            Q_EMIT closed();
            return true;
        }
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            Q_EMIT findRequested(m_field->text(), !(key->modifiers() & Qt::ShiftModifier));
            return true;
        }
    }
    return QFrame::eventFilter(watched, event);
}

} // namespace sbui
