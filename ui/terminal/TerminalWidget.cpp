#include "TerminalWidget.h"

#include "MonospaceFont.h"
#include "TerminalSearchBar.h"

#include <QInputMethodEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QScrollBar>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace sbui {
namespace {

constexpr int kFrameMs = 16;             // at most one paint per display frame
constexpr qsizetype kSliceBytes = 16384; // output parsed between two looks at the clock
constexpr int kParseBudgetMs = 8;        // parsing per turn of the event loop, then a frame
constexpr int kBlinkMs = 530;
constexpr int kFlashMs = 120;

} // namespace

TerminalWidget::TerminalWidget(QWidget* parent)
    : QAbstractScrollArea(parent), m_screen(std::make_unique<TerminalScreen>(24, 80))
{
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_InputMethodEnabled);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Always there, so scrollback appearing never changes the column count.
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    viewport()->setCursor(Qt::IBeamCursor);

    m_screen->setReplyHandler([this](const QByteArray& reply) { send(reply); });
    m_screen->setTitleHandler([this](const QString& title) { Q_EMIT titleChanged(title); });
    m_screen->setBellHandler([this] { onBell(); });

    m_inputTimer.setSingleShot(true);
    m_inputTimer.setInterval(0);
    connect(&m_inputTimer, &QTimer::timeout, this, [this] { processInput(false); });
    m_frameTimer.setSingleShot(true);
    connect(&m_frameTimer, &QTimer::timeout, this, &TerminalWidget::onFrame);
    m_blinkTimer.setInterval(kBlinkMs);
    connect(&m_blinkTimer, &QTimer::timeout, this, [this] {
        m_blinkOn = !m_blinkOn;
        const TerminalCursor cursor = m_screen->cursor();
        if (!cursor.blink || !cursor.visible) return;
        const int row = static_cast<int>(m_screen->firstScreenLine() + cursor.row - viewTop());
        viewport()->update(cellRect(row, cursor.col).adjusted(-2, 0, 2 * cellSize().width(), 0));
    });
    m_sinceFrame.start();

    m_searchBar = new TerminalSearchBar(this);
    m_searchBar->hide();
    connect(m_searchBar, &TerminalSearchBar::textEdited, this, [this](const QString& text) {
        m_match.reset();
        find(text, true);
    });
    connect(m_searchBar, &TerminalSearchBar::findRequested, this, &TerminalWidget::find);
    connect(m_searchBar, &TerminalSearchBar::closed, this, [this] {
        m_match.reset();
        viewport()->update();
        setFocus(Qt::OtherFocusReason);
    });

    setTerminalFont(monospaceFont());
    syncScrollBar();
}

TerminalWidget::~TerminalWidget() = default;

// ---------------------------------------------------------------------------------------------
// Output

void TerminalWidget::feed(const QByteArray& bytes)
{
    if (bytes.isEmpty()) return;
    if (hasPendingInput()) {
        m_pending.append(bytes);
    } else {
        m_pending = bytes; // shared, not copied
        m_pendingOffset = 0;
    }
    processInput(false);
}

// Parses queued output for up to kParseBudgetMs (everything with `all`), then lets the event
// loop turn: painting and the rest of the window go on during a flood.
void TerminalWidget::processInput(bool all)
{
    if (m_processing) return; // a handler fed more while libvterm was parsing: queued above
    m_processing = true;
    QElapsedTimer clock;
    clock.start();
    while (hasPendingInput()) {
        // A handler may feed (append) while libvterm reads: keep these bytes alive.
        const QByteArray queued = m_pending;
        const qsizetype n = std::min(kSliceBytes, queued.size() - m_pendingOffset);
        m_screen->write(queued.constData() + m_pendingOffset, static_cast<std::size_t>(n));
        m_pendingOffset += n;
        if (!all && clock.elapsed() >= kParseBudgetMs) break;
    }
    if (!hasPendingInput()) {
        m_pending.clear();
        m_pendingOffset = 0;
    } else if (!m_inputTimer.isActive()) {
        m_inputTimer.start();
    }
    m_processing = false;
    // The scroll bar follows the scrollback (and the cursor, on a screen taller than the view) at
    // once (cheap), the picture at the next frame.
    if (m_screen->firstScreenLine() != m_syncedFirstLine || hiddenRows() > 0) syncScrollBar();
    scheduleFrame();
}

void TerminalWidget::applyPendingInput() const
{
    if (hasPendingInput()) const_cast<TerminalWidget*>(this)->processInput(true);
}

void TerminalWidget::reset()
{
    m_pending.clear();
    m_pendingOffset = 0;
    m_inputTimer.stop();
    m_screen->reset();
    m_selection.clear();
    m_selecting = false;
    m_match.reset();
    m_follow = true;
    syncScrollBar();
    viewport()->update();
}

// One frame per display interval; longer when painting is slow (a huge window on a software
// renderer), so painting never takes more than a quarter of the time during a flood.
void TerminalWidget::scheduleFrame()
{
    if (m_frameTimer.isActive()) return;
    const qint64 interval = std::max<qint64>(kFrameMs, 4 * m_lastPaintNs / 1000000);
    const qint64 since = m_sinceFrame.elapsed();
    m_frameTimer.start(since >= interval ? 0 : static_cast<int>(interval - since));
}

void TerminalWidget::onFrame()
{
    m_sinceFrame.restart();
    const TerminalScreen::Damage damage = m_screen->takeDamage();
    if (m_screen->altScreen()) m_follow = true;
    syncScrollBar();
    if (viewTop() != m_paintedTop ||
        (damage.scrolled > 0 && (!m_follow || hasSelection() || m_match))) {
        viewport()->update();
    } else if (damage.first < damage.last) {
        const int top = static_cast<int>(m_screen->firstScreenLine() - viewTop());
        const QRect rows(0, (top + damage.first) * m_painter.cellHeight(), viewport()->width(),
                         (damage.last - damage.first) * m_painter.cellHeight());
        viewport()->update(rows.intersected(viewport()->rect()));
    }
}

// ---------------------------------------------------------------------------------------------
// Size, font, scrolling

void TerminalWidget::setReadOnly(bool readOnly)
{
    m_readOnly = readOnly;
    setAttribute(Qt::WA_InputMethodEnabled, !readOnly);
}

void TerminalWidget::setScrollbackLines(int lines)
{
    m_screen->setScrollbackLimit(lines);
    syncScrollBar();
    viewport()->update();
}

int TerminalWidget::scrollbackLines() const
{
    return m_screen->scrollbackLimit();
}

void TerminalWidget::setTerminalFont(const QFont& font)
{
    m_font = font;
    m_font.setStyleHint(QFont::TypeWriter);
    m_font.setFixedPitch(true);
    m_font.setKerning(false);
    m_painter.setFont(m_font);
    fitScreenToViewport();
    syncScrollBar();
    viewport()->update();
}

int TerminalWidget::rows() const
{
    return m_screen->rows();
}

int TerminalWidget::columns() const
{
    return m_screen->columns();
}

void TerminalWidget::resizeTerminal(int rows, int cols)
{
    m_fixedSize = true;
    resizeScreen(rows, cols);
}

void TerminalWidget::fitToWidget()
{
    m_fixedSize = false;
    fitScreenToViewport();
}

void TerminalWidget::fitScreenToViewport()
{
    // Hidden, the viewport has no real size yet: keep 24 × 80 until shown.
    if (m_fixedSize || !isVisible()) return;
    const QSize area = viewport()->size();
    const int cols = std::max(2, static_cast<int>(area.width() / m_painter.cellWidth()));
    const int rows = std::max(1, area.height() / m_painter.cellHeight());
    if (rows == m_screen->rows() && cols == m_screen->columns()) return;
    resizeScreen(rows, cols);
    Q_EMIT sizeChanged(rows, cols);
}

// The screen reflows: the selection, the current match and the view's top (when scrolled back)
// move with their characters. On the alternate screen, which the program redraws, the selection
// and the match go.
void TerminalWidget::resizeScreen(int rows, int cols)
{
    // Output already received was meant for the old size.
    applyPendingInput();
    if (m_screen->altScreen()) {
        m_screen->resize(rows, cols);
        m_selection.clear();
        m_selecting = false;
        m_match.reset();
    } else {
        std::array<TerminalPos, 7> keep{};
        const auto selection = m_selection.positions();
        std::copy(selection.begin(), selection.end(), keep.begin());
        if (m_match) {
            keep[4] = {m_match->line, m_match->col};
            keep[5] = {m_match->line, m_match->col + m_match->length};
        }
        keep[6] = {m_viewTop, 0};
        m_screen->resize(rows, cols, keep);
        if (!m_selection.isEmpty()) m_selection.setPositions({keep[0], keep[1], keep[2], keep[3]});
        if (m_match) {
            // Across a wrap now, it is counted on from the row's end (and shown up to there).
            const int length = keep[5].line == keep[4].line ? keep[5].col - keep[4].col
                                                            : cols - keep[4].col + keep[5].col;
            m_match = TerminalMatch{keep[4].line, keep[4].col, std::max(1, length)};
        }
        m_viewTop = keep[6].line;
    }
    syncScrollBar();
    viewport()->update();
}

void TerminalWidget::showEvent(QShowEvent* event)
{
    QAbstractScrollArea::showEvent(event);
    fitScreenToViewport();
    if (m_fixedSize) syncScrollBar();
}

void TerminalWidget::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    fitScreenToViewport();
    if (m_fixedSize) syncScrollBar(); // more or fewer of the screen's rows in view
    const QRect area = viewport()->geometry();
    m_searchBar->adjustSize();
    m_searchBar->move(area.right() - m_searchBar->width() - 4, area.top() + 4);
}

QSize TerminalWidget::sizeHint() const
{
    const int bar = verticalScrollBar()->sizeHint().width();
    return {static_cast<int>(std::ceil(80 * m_painter.cellWidth())) + bar,
            24 * m_painter.cellHeight()};
}

QSize TerminalWidget::cellSize() const
{
    return {static_cast<int>(std::round(m_painter.cellWidth())), m_painter.cellHeight()};
}

QRect TerminalWidget::cellRect(int viewRow, int col) const
{
    return m_painter.cellRect(viewRow, col);
}

std::int64_t TerminalWidget::viewTop() const
{
    return m_follow ? followTop() : m_viewTop;
}

int TerminalWidget::hiddenRows() const
{
    // A screen that follows the widget always fits it; a hidden widget has no real size yet.
    if (!m_fixedSize || !isVisible()) return 0;
    const int shown = std::max(1, viewport()->height() / m_painter.cellHeight());
    return std::max(0, m_screen->rows() - shown);
}

// The top of a view that follows the output: the screen's top, or, when the screen is taller than
// the view, as far below it as keeps the cursor's row in view.
std::int64_t TerminalWidget::followTop() const
{
    const std::int64_t top = m_screen->firstScreenLine();
    const int hidden = hiddenRows();
    if (hidden == 0) return top;
    const int shown = m_screen->rows() - hidden;
    return top + std::clamp(m_screen->cursor().row + 1 - shown, 0, hidden);
}

int TerminalWidget::lastViewRow() const
{
    return static_cast<int>(m_screen->firstScreenLine() + m_screen->rows() - 1 - viewTop());
}

int TerminalWidget::scrollOffset() const
{
    return static_cast<int>(m_screen->firstScreenLine() - viewTop());
}

// The scroll bar spans the scrollback and, on a fixed screen taller than the view, the screen's
// rows below the view.
void TerminalWidget::syncScrollBar()
{
    const std::int64_t screenTop = m_screen->firstScreenLine();
    const std::int64_t first = screenTop - m_screen->scrollbackSize();
    const int size = m_screen->altScreen() ? 0 : m_screen->scrollbackSize();
    const int hidden = hiddenRows();
    if (!m_follow) {
        m_viewTop = std::clamp(m_viewTop, first, screenTop + hidden);
        if ((size == 0 && hidden == 0) || m_viewTop == followTop()) m_follow = true;
    }
    m_syncedFirstLine = screenTop;
    m_syncingScrollBar = true;
    QScrollBar* bar = verticalScrollBar();
    bar->setRange(0, size + hidden);
    bar->setPageStep(m_screen->rows() - hidden);
    bar->setValue(static_cast<int>(viewTop() - (screenTop - size)));
    m_syncingScrollBar = false;
}

void TerminalWidget::scrollContentsBy(int, int)
{
    if (m_syncingScrollBar) return;
    const int size = m_screen->altScreen() ? 0 : m_screen->scrollbackSize();
    m_viewTop = m_screen->firstScreenLine() - size + verticalScrollBar()->value();
    m_follow = m_viewTop == followTop();
    viewport()->update();
}

void TerminalWidget::scrollToBottom()
{
    if (m_follow) return;
    m_follow = true;
    syncScrollBar();
    viewport()->update();
}

void TerminalWidget::scrollToLine(std::int64_t line)
{
    const int shown = m_screen->rows() - hiddenRows();
    if (line >= viewTop() && line < viewTop() + shown) return;
    m_follow = false;
    m_viewTop = line - shown / 2;
    syncScrollBar();
    viewport()->update();
}

// ---------------------------------------------------------------------------------------------
// Reading

const TerminalScreen& TerminalWidget::screen() const
{
    applyPendingInput();
    return *m_screen;
}

QString TerminalWidget::screenText() const
{
    applyPendingInput();
    QStringList lines;
    for (int row = 0; row < m_screen->rows(); ++row)
        lines << m_screen->lineText(row);
    return lines.join(u'\n');
}

QString TerminalWidget::lineText(int line) const
{
    applyPendingInput();
    return m_screen->lineText(line);
}

// ---------------------------------------------------------------------------------------------
// Keyboard

bool TerminalWidget::isWindowNavigation(const QKeyEvent& event)
{
    // As in GNOME Terminal: Ctrl+PgUp/PgDn and Alt+1…9 move between the window's tabs.
    const Qt::KeyboardModifiers mods =
        event.modifiers() & (Qt::ShiftModifier | Qt::ControlModifier | Qt::AltModifier);
    const int key = event.key();
    if (mods == Qt::ControlModifier) return key == Qt::Key_PageUp || key == Qt::Key_PageDown;
    return mods == Qt::AltModifier && key >= Qt::Key_1 && key <= Qt::Key_9;
}

bool TerminalWidget::isOwnShortcut(const QKeyEvent& event) const
{
    const Qt::KeyboardModifiers mods =
        event.modifiers() & (Qt::ShiftModifier | Qt::ControlModifier | Qt::AltModifier);
    const int key = event.key();
    if (mods == (Qt::ControlModifier | Qt::ShiftModifier))
        return key == Qt::Key_C || key == Qt::Key_V || key == Qt::Key_F;
    if (mods == Qt::ShiftModifier) {
        if (key == Qt::Key_Insert) return true;
        // In the alternate screen there is no scrollback: the program gets these.
        if (!m_screen->altScreen())
            return key == Qt::Key_PageUp || key == Qt::Key_PageDown || key == Qt::Key_Home ||
                   key == Qt::Key_End;
    }
    return false;
}

bool TerminalWidget::handleOwnShortcut(const QKeyEvent& event)
{
    if (!isOwnShortcut(event)) return false;
    QScrollBar* bar = verticalScrollBar();
    switch (event.key()) {
    case Qt::Key_C:
        copySelection();
        break;
    case Qt::Key_V:
    case Qt::Key_Insert:
        paste();
        break;
    case Qt::Key_F:
        openSearchBar();
        break;
    case Qt::Key_PageUp:
        bar->triggerAction(QAbstractSlider::SliderPageStepSub);
        break;
    case Qt::Key_PageDown:
        bar->triggerAction(QAbstractSlider::SliderPageStepAdd);
        break;
    case Qt::Key_Home:
        bar->triggerAction(QAbstractSlider::SliderToMinimum);
        break;
    case Qt::Key_End:
        bar->triggerAction(QAbstractSlider::SliderToMaximum);
        break;
    default:
        return false;
    }
    return true;
}

bool TerminalWidget::event(QEvent* event)
{
    // Claim the keys the program needs before the window's shortcuts see them (Tab, Ctrl+W,
    // Alt+F …); Ctrl+Shift+<letter> other than our own stay with the window.
    if (event->type() == QEvent::ShortcutOverride) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (isWindowNavigation(*key)) return QAbstractScrollArea::event(event);
        if (isOwnShortcut(*key) || (!m_readOnly && !translateKey(*key).isNone())) {
            key->accept();
            return true;
        }
    }
    return QAbstractScrollArea::event(event);
}

bool TerminalWidget::focusNextPrevChild(bool next)
{
    // Tab and Shift+Tab belong to the program while the terminal has focus.
    if (hasFocus()) return false;
    return QAbstractScrollArea::focusNextPrevChild(next);
}

void TerminalWidget::keyPressEvent(QKeyEvent* event)
{
    if (handleOwnShortcut(*event)) return;
    const TerminalKey key = translateKey(*event);
    if (m_readOnly || key.isNone()) {
        event->ignore();
        return;
    }
    send(m_screen->keyBytes(key));
    scrollToBottom();
    m_blinkOn = true;
    if (m_blinkTimer.isActive()) m_blinkTimer.start();
}

void TerminalWidget::inputMethodEvent(QInputMethodEvent* event)
{
    if (!m_readOnly && !event->commitString().isEmpty()) {
        send(event->commitString().toUtf8());
        scrollToBottom();
    }
    event->accept();
}

QVariant TerminalWidget::inputMethodQuery(Qt::InputMethodQuery query) const
{
    if (query == Qt::ImCursorRectangle) {
        const TerminalCursor c = m_screen->cursor();
        const int viewRow = static_cast<int>(m_screen->firstScreenLine() + c.row - viewTop());
        return cellRect(viewRow, c.col).translated(viewport()->pos());
    }
    return QAbstractScrollArea::inputMethodQuery(query);
}

void TerminalWidget::send(const QByteArray& bytes)
{
    if (!m_readOnly && !bytes.isEmpty()) Q_EMIT inputReady(bytes);
}

void TerminalWidget::focusInEvent(QFocusEvent* event)
{
    QAbstractScrollArea::focusInEvent(event);
    send(m_screen->focusBytes(true));
    m_blinkOn = true;
    m_blinkTimer.start();
    viewport()->update();
}

void TerminalWidget::focusOutEvent(QFocusEvent* event)
{
    QAbstractScrollArea::focusOutEvent(event);
    send(m_screen->focusBytes(false));
    m_blinkTimer.stop();
    m_blinkOn = true;
    viewport()->update();
}

void TerminalWidget::onBell()
{
    Q_EMIT bell();
    // A short flash, at most a few a second however often the program rings.
    if (m_sinceFlash.isValid() && m_sinceFlash.elapsed() < 4 * kFlashMs) return;
    m_sinceFlash.start();
    m_flash = true;
    viewport()->update();
    QTimer::singleShot(kFlashMs, this, [this] {
        m_flash = false;
        viewport()->update();
    });
}

// ---------------------------------------------------------------------------------------------
// Painting

void TerminalWidget::paintEvent(QPaintEvent* event)
{
    QElapsedTimer clock;
    clock.start();
    QPainter painter(viewport());
    const QPalette& pal = palette();
    TerminalPainter::Frame frame;
    frame.fg = pal.color(QPalette::Text).rgba();
    frame.bg = pal.color(QPalette::Base).rgba();
    frame.selectionFg = pal.color(QPalette::HighlightedText).rgba();
    frame.selectionBg = pal.color(QPalette::Highlight).rgba();
    frame.cursor = m_screen->cursor();
    frame.focused = hasFocus();
    frame.drawCursor = frame.cursor.visible && (!frame.focused || !frame.cursor.blink || m_blinkOn);
    frame.viewTop = viewTop();
    m_paintedTop = frame.viewTop;
    frame.hasSelection = hasSelection();
    frame.selectionStart = m_selection.start();
    frame.selectionEnd = m_selection.end();
    frame.match = m_match;

    const QRect area = event->rect();
    painter.fillRect(area, QColor::fromRgba(frame.bg));
    const int cellHeight = m_painter.cellHeight();
    const int firstRow = std::max(0, area.top() / cellHeight);
    const int lastRow = std::min(lastViewRow(), area.bottom() / cellHeight);
    for (int row = firstRow; row <= lastRow; ++row)
        m_painter.paintRow(painter, *m_screen, row, frame);
    if (m_flash) {
        QColor veil = QColor::fromRgba(frame.fg);
        veil.setAlpha(60);
        painter.fillRect(viewport()->rect(), veil);
    }
    m_lastPaintNs = clock.nsecsElapsed();
}

} // namespace sbui
