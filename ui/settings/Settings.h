// The window's preferences, in one typed place: the terminal's font and scrollback, what a new
// session starts with, desktop notifications, recording retention and the language.
//
// Stored with QSettings (on Linux ~/.config/sandbench/sandbench.conf, after the organisation and
// application names app/gui/main.cpp sets), except the retention limits: those live in core's
// $XDG_CONFIG_HOME/sandbench/recordings.json, which `sandbench-cli gc` reads too, so the window
// and the command line never disagree about what is kept.
#pragma once

#include <QFont>
#include <QObject>
#include <QString>

namespace sbui {

struct SettingsValues {
    QString fontFamily; // a monospace family
    int fontSize = 10;  // points
    int scrollbackLines = 10000;
    QString defaultPreset = QStringLiteral("generic");
    // Seconds an approval waits in sessions started from the window; 0 = as the policy says.
    int approvalTimeoutSeconds = 0;
    bool desktopNotifications = true;
    int keepDays = 90;     // recordings older than this are deleted; 0 = no limit
    int keepSizeMb = 2048; // the oldest recordings beyond this total are deleted; 0 = no limit
    QString language;      // "" = the system's, or one of supportedLanguages()
    bool operator==(const SettingsValues&) const = default;

    QFont terminalFont() const;
};

class Settings : public QObject {
    Q_OBJECT
  public:
    static constexpr int kMaxScrollback = 200000;
    static constexpr int kMaxApprovalTimeout = 86400; // the policy schema's limit
    static constexpr int kMaxKeepDays = 36500;
    static constexpr int kMaxKeepSizeMb = 1048576;

    // The process's settings, read from storage at first use.
    static Settings& instance();

    // What a fresh installation uses: the system's monospace font, 10,000 lines of scrollback,
    // the generic preset, the policy's approval timeout, notifications on, the retention
    // defaults of `sandbench-cli gc` (90 days, 2048 MB), the system's language.
    static SettingsValues defaults();
    // What is stored; anything missing or out of range takes its default. `problem` (if given)
    // says what could not be read.
    static SettingsValues load(QString* problem = nullptr);
    // Stores `values`; false with `error` set when the retention file cannot be written.
    static bool save(const SettingsValues& values, QString* error = nullptr);

    const SettingsValues& values() const { return m_values; }
    // What could not be read at the last load (the retention file): empty when all was read.
    // While it is not, the window deletes no recordings by limits it does not know.
    QString problem() const { return m_problem; }
    // Stores `values` and makes them current; changed() when anything differs.
    bool set(const SettingsValues& values, QString* error = nullptr);
    // Reads storage again (tests, and after another window saved).
    void reload();

  Q_SIGNALS:
    void changed();

  private:
    Settings();
    SettingsValues m_values;
    QString m_problem;
};

} // namespace sbui
