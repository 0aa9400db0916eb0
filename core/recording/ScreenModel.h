// A headless terminal screen (libvterm) for recordings: feed it output, read back its lines,
// and snapshot it as a compact VT byte string that repaints the same screen when fed to a
// fresh model or a real terminal. Keyframes are such snapshots: seeking loads the nearest one
// and replays only the output after it. A resize reflows the screen's lines as the window's
// terminal does (ScreenReflow.h), so a screen rebuilt through resizes shows the lines whole, as
// playing the output shows them; rows that leave the top are dropped (no scrollback).
#pragma once

#include "base/Error.h"
#include "base/VtermGuard.h"
#include "recording/ScreenLine.h"
#include "recording/ScreenReflow.h"
#include "recording/ScreenWrapTracker.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct VTerm;
struct VTermScreen;

namespace sb {

class ScreenModel {
  public:
    // A screen's rows are kept within 1…kMaxSide and its columns within kMinColumns…kMaxSide:
    // a size read from a damaged recording cannot make libvterm allocate gigabytes (or crash on
    // a negative one), and libvterm 0.1.4 writes through a null pointer when a wide glyph comes
    // to a screen of one column (found by fuzzing; the window's terminal has the same floor).
    static constexpr unsigned kMaxSide = 1000;
    static constexpr unsigned kMinColumns = 2;

    // Whether models work: libvterm is opened with the first one (VtermLibrary.h). Callers that
    // cannot do without a screen ask first; a model made without libvterm stays blank.
    static Status available();

    ScreenModel(unsigned rows, unsigned cols);
    ~ScreenModel();
    ScreenModel(const ScreenModel&) = delete;
    ScreenModel& operator=(const ScreenModel&) = delete;

    void feed(std::string_view bytes);
    void resize(unsigned rows, unsigned cols);
    unsigned rows() const { return m_rows; }
    unsigned cols() const { return m_cols; }

    // The visible lines, trailing blanks trimmed, UTF-8.
    std::vector<std::string> lines() const;
    std::string text() const; // lines() joined with '\n'
    struct Cursor {
        unsigned row = 0, col = 0;
        bool visible = true;
    };
    Cursor cursor() const;
    bool altScreen() const { return m_altScreen; }

    // A VT sequence that, fed to a blank terminal of the same size, reproduces the cells (text,
    // colours, attributes), the alternate-screen flag, the pen, the cursor and its visibility.
    // Rows the text ran into from the row before are written as one run, so that they stay one
    // line for a later resize. Not reproduced: scroll regions, tab stops, charsets and the
    // primary screen hidden under an alternate one (documented in docs/recording.md).
    std::string snapshot() const;
    // Reset to blank at the given size, then apply a snapshot (or any bytes).
    void restore(std::string_view snapshot, unsigned rows, unsigned cols);

  private:
    friend struct ScreenModelCallbacks;
    void reset();
    ScreenLine line(int row) const;
    // Replaces the screen's rows with `rows` at the new size (libvterm's rows grow from
    // sb_popline), the cursor at `cursor`.
    void loadScreen(std::vector<ScreenLine> rows, ScreenSpot cursor, unsigned newRows,
                    unsigned newCols);
    void write(std::string_view bytes); // our own sequences, past the guard

    VTerm* m_vt = nullptr;
    VtermGuard m_guard; // between the bytes and libvterm
    std::string m_guarded;
    VTermScreen* m_screen = nullptr;
    unsigned m_rows, m_cols;
    bool m_altScreen = false;
    bool m_cursorVisible = true;
    ScreenWrapTracker m_wrap;
    std::vector<ScreenLine> m_loading; // rows loadScreen() is putting back, bottom last
    bool m_isLoading = false;
};

} // namespace sb
