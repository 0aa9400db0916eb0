// How the review marks changes: names, icons and colours shared by the file tree and the diff
// view. Colours derive from the palette's lightness, so a dark theme gets dark tints.
#pragma once

#include <QColor>
#include <QCoreApplication>
#include <QIcon>
#include <QString>
#include <cstdint>

class QPalette;

namespace sbui {

enum class ChangeMarker : std::uint8_t { None, Added, Modified, Deleted, Conflict };

struct DiffColors {
    QColor addedLine;
    QColor removedLine;
    QColor addedWord;   // the changed characters inside an added line
    QColor removedWord; // and inside a removed one
    QColor hunk;        // the "@@ … @@" rows between hunks
    QColor blank;       // the empty side of a side-by-side row
    QColor lineNumber;  // text of the line-number columns
};

class ReviewStyle {
    Q_DECLARE_TR_FUNCTIONS(ReviewStyle)

  public:
    static QString markerName(ChangeMarker marker);
    static QIcon markerIcon(ChangeMarker marker);
    // The text colour of a changed entry's name, readable on the palette's base colour.
    static QColor markerColor(ChangeMarker marker, const QPalette& palette);
    static DiffColors diffColors(const QPalette& palette);
    // The background of a notice that waits for the user's decision (a conflict).
    static QColor attentionBackground(const QPalette& palette);
    static bool isDark(const QPalette& palette);
};

} // namespace sbui
