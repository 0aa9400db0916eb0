// The terminal pane: a TerminalScreen (libvterm) drawn with QPainter. Output is parsed as it
// arrives, in time-boxed slices so a flood never stalls the window; painting is coalesced to
// one frame per display interval and covers only the rows that changed. Scrollback with the
// wheel and Shift+PgUp/PgDn, selection (drag, word, line), copy and paste (Ctrl+Shift+C/V,
// bracketed when the program asked for it, middle-click from the X11 selection), find in the
// scrollback (Ctrl+Shift+F), mouse reports for programs that want them, a read-only mode. A
// resize reflows the text (TerminalScreen); selection, match and view stay on their text.
//
// Ctrl+Shift+<letter> is never sent to the program: C, V and F are handled here, every other
// one is left to the window's shortcuts.
#pragma once

#include "TerminalPainter.h"
#include "TerminalScreen.h"
#include "TerminalSelection.h"

#include <QAbstractScrollArea>
#include <QElapsedTimer>
#include <QFont>
#include <QTimer>
#include <memory>
#include <optional>

namespace sbui {

class TerminalSearchBar;

class TerminalWidget : public QAbstractScrollArea {
    Q_OBJECT
  public:
    explicit TerminalWidget(QWidget* parent = nullptr);
    ~TerminalWidget() override;

    // Output from the session.
    void feed(const QByteArray& bytes);
    // Clear screen, scrollback, selection and modes (a new session).
    void reset();

    // Read-only: keys, paste and input-method text are ignored and nothing is sent (not even
    // the terminal's replies); scrolling, selection, copy and find still work.
    void setReadOnly(bool readOnly);
    bool isReadOnly() const { return m_readOnly; }

    void setScrollbackLines(int lines);
    int scrollbackLines() const;
    void setTerminalFont(const QFont& font);
    QFont terminalFont() const { return m_font; }

    int rows() const;
    int columns() const;
    // A fixed size (tests, replay): the widget stops following its own size, and does not emit
    // sizeChanged() for it. fitToWidget() goes back to following the widget. A widget shorter
    // than the screen scrolls over the rest of it, and following keeps the cursor's row in view.
    void resizeTerminal(int rows, int cols);
    void fitToWidget();

    // The terminal's screen (not the scrolled view), lines joined by '\n', trailing spaces
    // trimmed. Reading applies any output still queued.
    QString screenText() const;
    // Line of the screen (0 … rows-1), or of the scrollback (-1 newest … -scrollbackSize()).
    QString lineText(int line) const;
    // The model, for reading cells, the cursor and the scrollback (output applied).
    const TerminalScreen& screen() const;
    bool hasPendingInput() const { return m_pendingOffset < m_pending.size(); }

    // Selection, in absolute lines (TerminalScreen's numbering), `to` exclusive.
    bool hasSelection() const;
    QString selectedText() const;
    void selectAll();
    void clearSelection();
    void copySelection();
    // Pastes the clipboard (or the X11 selection) into the program.
    void paste(bool fromSelection = false);

    // Lines between the screen's top and the view's: scrolled back into the scrollback by this
    // many (0 = the screen's top in view); below 0 when a fixed screen taller than the widget is
    // shown from further down.
    int scrollOffset() const;
    void scrollToBottom();

    // Find in scrollback and screen; highlights the match and scrolls it into view. From the
    // current match, or from the bottom when there is none. Returns whether one was found.
    bool find(const QString& text, bool older = true);
    std::optional<TerminalMatch> currentMatch() const { return m_match; }
    void openSearchBar();
    TerminalSearchBar* searchBar() const { return m_searchBar; }

    // Geometry, for tests and the window: the viewport rectangle of a view row and column.
    QRect cellRect(int viewRow, int col) const;
    QSize cellSize() const;

    QSize sizeHint() const override;
    QVariant inputMethodQuery(Qt::InputMethodQuery query) const override;

  Q_SIGNALS:
    void inputReady(const QByteArray& bytes);
    void sizeChanged(int rows, int cols);
    void titleChanged(const QString& title);
    void bell();

  protected:
    bool event(QEvent* event) override;
    bool focusNextPrevChild(bool next) override;
    void paintEvent(QPaintEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void inputMethodEvent(QInputMethodEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void focusInEvent(QFocusEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void changeEvent(QEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;

  private:
    void processInput(bool all);
    void applyPendingInput() const;
    void scheduleFrame();
    void onFrame();
    void fitScreenToViewport();
    void resizeScreen(int rows, int cols);
    void syncScrollBar();
    std::int64_t viewTop() const;
    std::int64_t followTop() const;
    // Rows of a fixed-size screen below the view when the widget is too short for all of them.
    int hiddenRows() const;
    // The last view row that shows a line (the screen's last line may be above the view's end).
    int lastViewRow() const;
    void scrollToLine(std::int64_t absoluteLine);
    void send(const QByteArray& bytes);
    bool handleOwnShortcut(const QKeyEvent& event);
    bool isOwnShortcut(const QKeyEvent& event) const;
    // Keys the window's shortcuts take even while a program runs here: moving between tabs.
    static bool isWindowNavigation(const QKeyEvent& event);
    void onBell();

    // Mouse position to an absolute position: `between` rounds to the nearest gap between cells
    // (selection ends), otherwise the cell under the point.
    TerminalPos positionAt(const QPoint& point, bool between) const;
    bool mouseGoesToProgram(const QMouseEvent& event) const;
    bool reportMouse(const QMouseEvent& event, bool pressed);
    TerminalPos selectionPositionAt(const QPoint& point) const;

    std::unique_ptr<TerminalScreen> m_screen;
    bool m_readOnly = false;
    bool m_fixedSize = false;

    // Output not parsed yet (a large feed continues on the next turn of the event loop).
    mutable QByteArray m_pending;
    mutable qsizetype m_pendingOffset = 0;
    QTimer m_inputTimer;
    bool m_processing = false;

    QTimer m_frameTimer;
    QElapsedTimer m_sinceFrame;
    QTimer m_blinkTimer;
    bool m_blinkOn = true;
    QElapsedTimer m_sinceFlash;
    bool m_flash = false;

    QFont m_font;
    TerminalPainter m_painter;
    qint64 m_lastPaintNs = 0;

    bool m_follow = true;
    std::int64_t m_viewTop = 0;    // absolute line at the top of the view when not following
    std::int64_t m_paintedTop = 0; // the view's top at the last paint
    bool m_syncingScrollBar = false;
    std::int64_t m_syncedFirstLine = 0;

    TerminalSelection m_selection;
    bool m_selecting = false; // a drag is under way
    QElapsedTimer m_sinceDoubleClick;
    QPoint m_doubleClickPos;
    int m_mouseButtonsReported = 0;
    int m_wheelRemainder = 0;

    std::optional<TerminalMatch> m_match;
    TerminalSearchBar* m_searchBar = nullptr;
};

} // namespace sbui
