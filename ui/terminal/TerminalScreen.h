// The terminal's model: libvterm parses the program's output and keeps the screen (primary and
// alternate); this class keeps what libvterm does not: the scrollback ring, the cursor's shape,
// the title, and which rows changed since the widget last painted. It also encodes what goes
// back to the program (keys, paste, mouse, focus) through libvterm, so the encodings follow
// the modes the program set. No painting here (TerminalWidget does that).
//
// Lines are addressed two ways. An *index* is relative to the screen: 0 … rows-1 are the screen,
// -1 the newest scrollback line, -scrollbackSize() the oldest. An *absolute* line number stays
// with its line while output scrolls: absolute = firstScreenLine() + index. A resize lays lines
// out anew (reflow): their numbers change, and resize() carries positions along.
//
// Reflow (TerminalReflow.h) on every resize of the primary screen: libvterm 0.1.4 has none, so
// the rows it soft-wrapped are tracked (TerminalWrapTracker.h), the scrollback and the screen
// re-wrapped at the new width, and libvterm's screen loaded with the result. The alternate
// screen is not reflowed: full-screen programs redraw it when told the new size. The primary
// screen under it is kept from the moment the program switches over (libvterm would cut its
// rows to the new size), reflowed with the scrollback on every resize meanwhile, and put back
// when the program switches back.
#pragma once

#include "KeyTranslator.h"
#include "TerminalLine.h"
#include "TerminalReflow.h"
#include "TerminalScrollback.h"
#include "TerminalWrapTracker.h"
#include "base/VtermGuard.h"

#include <QByteArray>
#include <QString>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

struct VTerm;
struct VTermScreen;

namespace sbui {

struct TerminalCursor {
    enum class Shape { Block, Underline, Bar };
    int row = 0, col = 0;
    bool visible = true;
    bool blink = true;
    Shape shape = Shape::Block;
};

// A position between cells: absolute line, column.
struct TerminalPos {
    std::int64_t line = 0;
    int col = 0;
    auto operator<=>(const TerminalPos&) const = default;
};

struct TerminalMatch {
    std::int64_t line = 0; // absolute
    int col = 0;
    int length = 0; // in columns
};

class TerminalScreen {
  public:
    enum class MouseMode { None, Click, Drag, Move };

    // libvterm 0.1.4 writes a wide character's right half past the end of a 1-column row.
    static constexpr int kMinColumns = 2;

    TerminalScreen(int rows, int cols);
    ~TerminalScreen();
    TerminalScreen(const TerminalScreen&) = delete;
    TerminalScreen& operator=(const TerminalScreen&) = delete;

    // Where the terminal's replies go (device attributes, cursor position reports, …).
    void setReplyHandler(std::function<void(const QByteArray&)> handler);
    void setTitleHandler(std::function<void(const QString&)> handler);
    void setBellHandler(std::function<void()> handler);

    void write(const char* bytes, std::size_t length);
    // A fresh terminal of the same size: blank screen, no scrollback, default modes.
    void reset();
    // Reflows the primary screen and the scrollback to the new width, the bottom of the text
    // staying at the bottom of the screen; the cursor stays on its character. `keep`: absolute
    // positions (selection ends, the view's top) to carry to the same character; on the
    // alternate screen they are left as they are.
    void resize(int rows, int cols, std::span<TerminalPos> keep = {});
    int rows() const { return m_rows; }
    int columns() const { return m_cols; }

    // Lines past the limit are dropped, oldest first. 0 keeps none.
    void setScrollbackLimit(int lines);
    int scrollbackLimit() const { return m_scrollback.limit(); }
    int scrollbackSize() const { return m_scrollback.size(); }
    void clearScrollback();
    std::int64_t firstScreenLine() const { return m_firstScreenLine; }

    // index in [-scrollbackSize(), rows()); anything else is an empty line.
    const TerminalLine& line(int index) const;
    TerminalCell cell(int index, int col) const { return line(index).cell(col); }
    // The line's text, trailing spaces trimmed.
    QString lineText(int index) const;
    // Text between two positions (absolute, `to` exclusive), lines joined by '\n' with their
    // trailing spaces trimmed; a line the next one continues (a soft wrap) joins it as it is.
    QString text(TerminalPos from, TerminalPos to) const;
    // The word around a column: [first, last] columns of the run of word characters (or of the
    // same non-word character) under it.
    std::pair<int, int> wordAt(std::int64_t absoluteLine, int col) const;
    // The nearest match of `needle` before (backwards) or after `from`, wrapping around once.
    // Matches lie within one line.
    std::optional<TerminalMatch> find(const QString& needle, TerminalPos from, bool backwards,
                                      Qt::CaseSensitivity cs = Qt::CaseInsensitive) const;

    TerminalCursor cursor() const;
    bool altScreen() const { return m_altScreen; }
    QString title() const { return m_title; }
    MouseMode mouseMode() const { return m_mouseMode; }

    // Rows of the screen changed since the last call, as [first, last) (empty when first >=
    // last); `scrolled` counts lines that went into the scrollback meanwhile.
    struct Damage {
        int first = 0, last = 0;
        std::int64_t scrolled = 0;
    };
    Damage takeDamage();

    // Bytes for the program, encoded under the terminal's current modes.
    QByteArray keyBytes(const TerminalKey& key);
    // Newlines become CR; control characters other than tab are dropped (a pasted ESC could
    // end a bracketed paste early); bracketed when the program enabled it (DECSET 2004).
    QByteArray pasteBytes(const QString& text);
    // Mouse reports, for programs that asked for them (mouseMode() != None). button: 1 left,
    // 2 middle, 3 right, 4/5 wheel up/down. Empty when the mode does not report it.
    QByteArray mouseMoveBytes(int row, int col, Qt::KeyboardModifiers mods);
    QByteArray mouseButtonBytes(int button, bool pressed, Qt::KeyboardModifiers mods);
    // Focus reports, when the program enabled them (DECSET 1004).
    QByteArray focusBytes(bool focused);

  private:
    friend struct TerminalScreenCallbacks;

    void create();
    void parse(const char* bytes, std::size_t length);
    void damageRows(int first, int last);
    void refreshRow(int row) const;
    QByteArray takeCaptured();
    TerminalSpot cursorSpot() const;

    // TerminalScreenReflow.cpp: output parsed in pieces around the switches to and from the
    // alternate screen, the primary screen saved and put back across them; libvterm's screen
    // loaded with rows of our own.
    void writeWatchingAltScreen(const char* bytes, std::size_t length);
    void savePrimary();
    void restorePrimary(bool withCursor);
    void loadScreen(std::vector<TerminalLine> rows, TerminalSpot cursor, int newRows, int newCols);
    std::int64_t firstAbsoluteLine() const { return m_firstScreenLine - scrollbackSize(); }

    VTerm* m_vt = nullptr;
    sb::VtermGuard m_guard; // between the program's bytes and libvterm
    std::string m_guarded;
    VTermScreen* m_screen = nullptr;
    int m_rows, m_cols;

    TerminalScrollback m_scrollback;
    std::int64_t m_firstScreenLine = 0;
    TerminalWrapTracker m_wrap;

    // Rows libvterm takes (sb_popline) while loadScreen() grows its screen, the bottom one last.
    std::vector<TerminalLine> m_loading;
    bool m_isLoading = false;
    // The primary screen while the alternate one shows; `resized` once libvterm cut it.
    struct SavedPrimary {
        std::vector<TerminalLine> rows;
        TerminalSpot cursor;
        bool resized = false;
    };
    std::optional<SavedPrimary> m_savedPrimary;
    // The start of a sequence that may switch screens, held until the rest of it arrives.
    QByteArray m_heldBack;

    // The screen's rows converted from libvterm, refreshed when libvterm reports damage.
    mutable std::vector<TerminalLine> m_rowCache;
    mutable std::vector<char> m_rowStale;
    TerminalLine m_emptyLine;

    Damage m_damage;
    bool m_altScreen = false;
    bool m_cursorVisible = true;
    bool m_cursorBlink = true;
    TerminalCursor::Shape m_cursorShape = TerminalCursor::Shape::Block;
    MouseMode m_mouseMode = MouseMode::None;
    QString m_title;

    // Output libvterm produced: during write() replies, otherwise the bytes being encoded.
    QByteArray m_captured;
    std::function<void(const QByteArray&)> m_onReply;
    std::function<void(const QString&)> m_onTitle;
    std::function<void()> m_onBell;
};

} // namespace sbui
