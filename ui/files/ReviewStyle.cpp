#include "ReviewStyle.h"

#include <QPalette>

namespace sbui {
namespace {

QColor mix(const QColor& base, const QColor& tint, double amount)
{
    auto channel = [&](int b, int t) { return static_cast<int>(b + (t - b) * amount + 0.5); };
    return QColor(channel(base.red(), tint.red()), channel(base.green(), tint.green()),
                  channel(base.blue(), tint.blue()));
}

// Hues of the usual review colours; how strongly they tint depends on the theme.
const QColor kGreen(46, 160, 67);
const QColor kRed(218, 54, 51);
const QColor kAmber(191, 135, 0);
const QColor kPurple(163, 113, 247);

} // namespace

bool ReviewStyle::isDark(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

QString ReviewStyle::markerName(ChangeMarker marker)
{
    switch (marker) {
    case ChangeMarker::None:
        return {};
    case ChangeMarker::Added:
        return tr("added");
    case ChangeMarker::Modified:
        return tr("modified");
    case ChangeMarker::Deleted:
        return tr("deleted");
    case ChangeMarker::Conflict:
        return tr("conflict");
    }
    return {};
}

QIcon ReviewStyle::markerIcon(ChangeMarker marker)
{
    switch (marker) {
    case ChangeMarker::None:
        return {};
    case ChangeMarker::Added:
        return QIcon(QStringLiteral(":/icons/change-added.svg"));
    case ChangeMarker::Modified:
        return QIcon(QStringLiteral(":/icons/change-modified.svg"));
    case ChangeMarker::Deleted:
        return QIcon(QStringLiteral(":/icons/change-deleted.svg"));
    case ChangeMarker::Conflict:
        return QIcon(QStringLiteral(":/icons/change-conflict.svg"));
    }
    return {};
}

QColor ReviewStyle::markerColor(ChangeMarker marker, const QPalette& palette)
{
    const QColor text = palette.color(QPalette::Text);
    const bool dark = isDark(palette);
    // On a dark base the hues are lifted towards the (light) text colour, on a light base
    // darkened towards it, so each stays readable.
    auto readable = [&](const QColor& hue) { return mix(hue, text, dark ? 0.25 : 0.3); };
    switch (marker) {
    case ChangeMarker::None:
        return text;
    case ChangeMarker::Added:
        return readable(kGreen);
    case ChangeMarker::Modified:
        return readable(kAmber);
    case ChangeMarker::Deleted:
        return readable(kRed);
    case ChangeMarker::Conflict:
        return readable(kPurple);
    }
    return text;
}

QColor ReviewStyle::attentionBackground(const QPalette& palette)
{
    return mix(palette.color(QPalette::Window), kPurple, isDark(palette) ? 0.3 : 0.15);
}

DiffColors ReviewStyle::diffColors(const QPalette& palette)
{
    const QColor base = palette.color(QPalette::Base);
    const bool dark = isDark(palette);
    DiffColors c;
    c.addedLine = mix(base, kGreen, dark ? 0.22 : 0.14);
    c.removedLine = mix(base, kRed, dark ? 0.22 : 0.12);
    c.addedWord = mix(base, kGreen, dark ? 0.5 : 0.38);
    c.removedWord = mix(base, kRed, dark ? 0.5 : 0.34);
    c.hunk = mix(base, palette.color(QPalette::Highlight), dark ? 0.2 : 0.1);
    c.blank = mix(base, palette.color(QPalette::Text), dark ? 0.06 : 0.04);
    c.lineNumber = mix(palette.color(QPalette::Text), base, 0.45);
    return c;
}

} // namespace sbui
