// TerminalWidget's clipboard and find: the selection's text, copy and paste (bracketed when the
// program asked for it), and search through the scrollback.
#include "TerminalSearchBar.h"
#include "TerminalWidget.h"

#include <QClipboard>
#include <QGuiApplication>
#include <limits>

namespace sbui {

bool TerminalWidget::hasSelection() const
{
    return !m_selection.isEmpty();
}

QString TerminalWidget::selectedText() const
{
    applyPendingInput();
    return m_selection.text(*m_screen);
}

void TerminalWidget::selectAll()
{
    applyPendingInput();
    m_selection.selectAll(*m_screen);
    viewport()->update();
}

void TerminalWidget::clearSelection()
{
    m_selection.clear();
    m_selecting = false;
    viewport()->update();
}

void TerminalWidget::copySelection()
{
    if (hasSelection()) QGuiApplication::clipboard()->setText(selectedText());
}

void TerminalWidget::paste(bool fromSelection)
{
    if (m_readOnly) return;
    QClipboard* clipboard = QGuiApplication::clipboard();
    if (fromSelection && !clipboard->supportsSelection()) return;
    const QString text =
        clipboard->text(fromSelection ? QClipboard::Selection : QClipboard::Clipboard);
    if (text.isEmpty()) return;
    send(m_screen->pasteBytes(text));
    scrollToBottom();
}

void TerminalWidget::openSearchBar()
{
    m_searchBar->adjustSize();
    const QRect area = viewport()->geometry();
    m_searchBar->move(area.right() - m_searchBar->width() - 4, area.top() + 4);
    m_searchBar->activate();
}

bool TerminalWidget::find(const QString& text, bool older)
{
    applyPendingInput();
    TerminalPos from;
    if (m_match) {
        from = {m_match->line, m_match->col};
    } else if (older) {
        from = {m_screen->firstScreenLine() + m_screen->rows() - 1,
                std::numeric_limits<int>::max()};
    } else {
        from = {m_screen->firstScreenLine() - m_screen->scrollbackSize(), -1};
    }
    m_match = m_screen->find(text, from, older);
    m_searchBar->setNotFound(!text.isEmpty() && !m_match);
    if (m_match) scrollToLine(m_match->line);
    viewport()->update();
    return m_match.has_value();
}

} // namespace sbui
