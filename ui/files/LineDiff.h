// Line and character differences between two versions of a text, for the review's diff view.
// The edit scripts come from Debian's dtl (libdtl-dev, the O(NP) algorithm of Wu, Manber and
// Myers); this file turns them into lines, hunks, side-by-side rows and intra-line ranges.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

namespace sbui::diff {

enum class LineKind : std::uint8_t { Context, Removed, Added };

// A run of UTF-16 positions in one line's text.
struct Range {
    int start = 0;
    int length = 0;
    bool operator==(const Range&) const = default;
};

struct Line {
    LineKind kind = LineKind::Context;
    int oldIndex = -1; // into Result::oldLines; -1 for an added line
    int newIndex = -1; // into Result::newLines; -1 for a removed line
    // What changed inside the line, against its counterpart on the other side: ranges of the
    // old text for a removed line, of the new text for an added one.
    QList<Range> highlights;
};

struct Options {
    bool ignoreWhitespace = false; // like diff -w: lines equal but for white space are equal
};

struct Result {
    QStringList oldLines;
    QStringList newLines;
    bool oldEndsWithNewline = true;
    bool newEndsWithNewline = true;
    std::vector<Line> lines; // every line of both versions, in unified order
    int added = 0;
    int removed = 0;
    // The texts were too different to compare line by line in reasonable time: the changed
    // middle shows as removed and then added wholesale.
    bool coarse = false;

    const QString& text(const Line& line) const;
    bool hasChanges() const { return added + removed > 0; }
};

// A run of lines to show, with the unified header's numbers (1-based; a count of 0 gives the
// line before, as diff -u does).
struct Hunk {
    int first = 0; // into Result::lines
    int last = 0;  // inclusive
    int oldStart = 0;
    int oldCount = 0;
    int newStart = 0;
    int newCount = 0;
};

// One row of the side-by-side layout: indexes into Result::lines, -1 for a blank side.
struct SideRow {
    int left = -1;
    int right = -1;
    bool operator==(const SideRow&) const = default;
};

// Splits at '\n'; a last line without one is still a line.
QStringList splitLines(const QString& text, bool* endsWithNewline = nullptr);

Result compare(const QString& before, const QString& after, const Options& options = {});

// The changed ranges of two versions of one line: {in a, in b}. Empty when the lines have
// too little in common for a highlight to help (or are too long to compare).
std::pair<QList<Range>, QList<Range>> intraLine(const QString& a, const QString& b,
                                                bool ignoreWhitespace = false);

// The changed lines with `context` unchanged lines around them; hunks closer than that merge.
std::vector<Hunk> hunks(const Result& result, int context);

// Side-by-side rows for lines[first..last]: unchanged lines face each other, and a block of
// removed lines faces the added lines that replaced it.
std::vector<SideRow> sideBySide(const Result& result, int first, int last);

// The result as `diff -u` writes it, with these labels.
QString unifiedText(const Result& result, int context, const QString& oldLabel,
                    const QString& newLabel);

} // namespace sbui::diff
