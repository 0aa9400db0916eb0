// TerminalWidget's mouse: selection, paste, the wheel, the context menu, and mouse reports for
// programs that asked for the mouse.
#include "TerminalWidget.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QScrollBar>
#include <QStyleHints>
#include <QWheelEvent>
#include <cmath>
#include <limits>

namespace sbui {

TerminalPos TerminalWidget::positionAt(const QPoint& point, bool between) const
{
    const int viewRow = std::clamp(point.y() / m_painter.cellHeight(), 0, lastViewRow());
    const qreal x = std::max(0, point.x()) / m_painter.cellWidth();
    const int col = between ? static_cast<int>(std::round(x)) : static_cast<int>(x);
    const int maxCol = between ? m_screen->columns() : m_screen->columns() - 1;
    return {viewTop() + viewRow, std::clamp(col, 0, maxCol)};
}

// Where a drag ends: a gap between cells when selecting characters, else the cell.
TerminalPos TerminalWidget::selectionPositionAt(const QPoint& point) const
{
    return positionAt(point, m_selection.mode() == TerminalSelection::Mode::Character);
}

bool TerminalWidget::mouseGoesToProgram(const QMouseEvent& event) const
{
    // Shift always selects, as in xterm; reports only while the live screen is shown.
    return !m_readOnly && m_screen->mouseMode() != TerminalScreen::MouseMode::None &&
           !(event.modifiers() & Qt::ShiftModifier) && m_follow;
}

bool TerminalWidget::reportMouse(const QMouseEvent& event, bool pressed)
{
    const int button = event.button() == Qt::LeftButton     ? 1
                       : event.button() == Qt::MiddleButton ? 2
                       : event.button() == Qt::RightButton  ? 3
                                                            : 0;
    if (button == 0) return false;
    const TerminalPos pos = positionAt(event.position().toPoint(), false);
    const int row = static_cast<int>(pos.line - m_screen->firstScreenLine());
    QByteArray out = m_screen->mouseMoveBytes(row, pos.col, event.modifiers());
    out += m_screen->mouseButtonBytes(button, pressed, event.modifiers());
    if (pressed)
        m_mouseButtonsReported |= 1 << button;
    else
        m_mouseButtonsReported &= ~(1 << button);
    send(out);
    return true;
}

void TerminalWidget::mousePressEvent(QMouseEvent* event)
{
    if (mouseGoesToProgram(*event) && reportMouse(*event, true)) return;
    if (event->button() == Qt::MiddleButton) {
        paste(true);
        return;
    }
    if (event->button() != Qt::LeftButton) return;
    applyPendingInput();
    const QPoint point = event->position().toPoint();
    const bool tripleClick =
        m_sinceDoubleClick.isValid() &&
        m_sinceDoubleClick.elapsed() < qApp->doubleClickInterval() &&
        (point - m_doubleClickPos).manhattanLength() < qApp->styleHints()->startDragDistance();
    m_sinceDoubleClick.invalidate();
    m_selecting = true;
    if (tripleClick)
        m_selection.begin(*m_screen, TerminalSelection::Mode::Line, positionAt(point, false));
    else if ((event->modifiers() & Qt::ShiftModifier) && hasSelection())
        m_selection.extendTo(*m_screen, selectionPositionAt(point));
    else
        m_selection.begin(*m_screen, TerminalSelection::Mode::Character, positionAt(point, true));
    viewport()->update();
}

void TerminalWidget::mouseDoubleClickEvent(QMouseEvent* event)
{
    if (mouseGoesToProgram(*event) && reportMouse(*event, true)) return;
    if (event->button() != Qt::LeftButton) return;
    applyPendingInput();
    m_selection.begin(*m_screen, TerminalSelection::Mode::Word,
                      positionAt(event->position().toPoint(), false));
    m_selecting = true;
    viewport()->update();
    m_sinceDoubleClick.start();
    m_doubleClickPos = event->position().toPoint();
}

void TerminalWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (mouseGoesToProgram(*event)) {
        const TerminalPos pos = positionAt(event->position().toPoint(), false);
        send(m_screen->mouseMoveBytes(static_cast<int>(pos.line - m_screen->firstScreenLine()),
                                      pos.col, event->modifiers()));
        return;
    }
    if (!m_selecting) return;
    // Dragging past the top or bottom edge scrolls.
    const QPoint point = event->position().toPoint();
    if (point.y() < 0)
        verticalScrollBar()->triggerAction(QAbstractSlider::SliderSingleStepSub);
    else if (point.y() >= viewport()->height())
        verticalScrollBar()->triggerAction(QAbstractSlider::SliderSingleStepAdd);
    m_selection.extendTo(*m_screen, selectionPositionAt(point));
    viewport()->update();
}

void TerminalWidget::mouseReleaseEvent(QMouseEvent* event)
{
    if (m_mouseButtonsReported != 0 && mouseGoesToProgram(*event) && reportMouse(*event, false))
        return;
    if (event->button() != Qt::LeftButton || !m_selecting) return;
    m_selecting = false;
    QClipboard* clipboard = QGuiApplication::clipboard();
    if (hasSelection() && clipboard->supportsSelection())
        clipboard->setText(selectedText(), QClipboard::Selection);
}

// The wheel scrolls the scrollback, except for programs that take the mouse (reported as
// buttons 4 and 5) and in the alternate screen, which has no scrollback: there it sends cursor
// keys, as xterm's alternateScroll does, so less and man scroll with it. Shift always scrolls.
void TerminalWidget::wheelEvent(QWheelEvent* event)
{
    const bool mouse = m_screen->mouseMode() != TerminalScreen::MouseMode::None;
    if (m_readOnly || (event->modifiers() & Qt::ShiftModifier) || !m_follow ||
        (!mouse && !m_screen->altScreen())) {
        m_wheelRemainder = 0;
        QAbstractScrollArea::wheelEvent(event);
        return;
    }
    // Touchpads send fractions of a notch; the program gets whole notches.
    m_wheelRemainder += event->angleDelta().y();
    const int steps = m_wheelRemainder / 120;
    m_wheelRemainder -= steps * 120;
    if (steps == 0) return;
    QByteArray out;
    if (mouse) {
        const TerminalPos pos = positionAt(event->position().toPoint(), false);
        out = m_screen->mouseMoveBytes(static_cast<int>(pos.line - m_screen->firstScreenLine()),
                                       pos.col, event->modifiers());
        for (int i = 0; i < std::abs(steps); ++i)
            out += m_screen->mouseButtonBytes(steps > 0 ? 4 : 5, true, event->modifiers());
    } else {
        TerminalKey key;
        key.kind = TerminalKey::Kind::VTermKey;
        key.key = steps > 0 ? VTERM_KEY_UP : VTERM_KEY_DOWN;
        for (int i = 0; i < std::abs(steps) * QApplication::wheelScrollLines(); ++i)
            out += m_screen->keyBytes(key);
    }
    send(out);
}

void TerminalWidget::contextMenuEvent(QContextMenuEvent* event)
{
    QMenu menu(this);
    QAction* copy = menu.addAction(tr("&Copy"), this, &TerminalWidget::copySelection);
    copy->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    copy->setEnabled(hasSelection());
    QAction* pasteAction = menu.addAction(tr("&Paste"), this, [this] { paste(); });
    pasteAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V));
    pasteAction->setEnabled(!m_readOnly);
    menu.addAction(tr("Select &All"), this, &TerminalWidget::selectAll);
    menu.addSeparator();
    QAction* findAction = menu.addAction(tr("&Find…"), this, &TerminalWidget::openSearchBar);
    findAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    menu.exec(event->globalPos());
}

void TerminalWidget::changeEvent(QEvent* event)
{
    // The default colours are the palette's, so a theme change repaints.
    if (event->type() == QEvent::PaletteChange) viewport()->update();
    QAbstractScrollArea::changeEvent(event);
}

} // namespace sbui
