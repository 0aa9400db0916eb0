// Replay of a recorded session: the terminal as it was, with play/pause, speed (0.25x-16x), idle
// gaps over 2 s shortened (said beside the speed) or played in real time, a scrubber with event
// markers, next/previous event, jump to a typed time, search in the terminal text (a hit jumps
// there and marks its line), and export to asciicast v2 or JSON Lines. The activity timeline is the
// window's (one list, not a second one): the replay fills it with the recording's events, selects
// the one at the position as it moves, and a click on an event jumps to it.
//
// Keys: Space plays or pauses, Ctrl+Left/Right go to the previous/next event, Ctrl+F searches,
// Ctrl+G jumps to a time; the scrubber takes arrows, Page Up/Down, Home and End.
#pragma once

#include "recording/RecordingExport.h"

#include <QString>
#include <QWidget>
#include <functional>
#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QSplitter;
class QToolButton;

namespace sbui {

class ActivityView;
class ReplayController;
class ReplayScrubber;
class TerminalWidget;

class ReplayView : public QWidget {
    Q_OBJECT
  public:
    explicit ReplayView(ActivityView* timeline, QWidget* parent = nullptr);
    ~ReplayView() override;

    // Shows a recorded session from its start, paused, its events in the timeline. On failure
    // `error` says why and the view keeps what it showed.
    // `file`, `shownName`: a remote session's recording fetched into a database here, and the
    // name the status line gives it (its host and id).
    bool open(const QString& sessionId, QString* error, const QString& file = {},
              const QString& shownName = {});
    void close();
    // Closed, with `text` in the status line (a remote recording being fetched, or why not).
    void showNotice(const QString& text, bool problem = false);
    QString sessionId() const;

    qint64 positionNs() const;
    qint64 durationNs() const;
    void seek(qint64 ns);
    void play();
    void pause();
    // Clamped to 0.25x-16x; the speed box shows the nearest of its steps.
    void setSpeed(double speed);
    // Jumps to the next/previous marked event; false when there is none.
    bool nextEvent();
    bool previousEvent();
    // As typed in the time field ("90", "1m30s", "1:30"); false (and says why) when unreadable.
    bool jumpTo(const QString& time);
    // Fills the hit list with the terminal text matching `text`; the number of hits.
    int search(const QString& text);
    // The code interpreter's executions (activity "execution") that had run at `ns`.
    int executionsAt(qint64 ns) const;
    // Goes to the time execution `index` (from 0) ran; false when there is none.
    bool seekToExecution(int index);

    // Writes the recording to `path` (atomically, through the core's export).
    bool exportTo(sb::ExportFormat format, const QString& path, QString* error);
    struct ExportChoice {
        sb::ExportFormat format = sb::ExportFormat::Asciicast;
        QString path;
    };
    // Asks where to export (the chooser, by default a file dialog) and exports there.
    void exportWithDialog();
    // Answers the Export… dialog (tests): return the choice, or nullopt for Cancel.
    using ExportChooser = std::function<std::optional<ExportChoice>(QWidget* parent)>;
    void setExportChooser(ExportChooser chooser);

    ReplayController* controller() const { return m_controller; }
    TerminalWidget* terminal() const { return m_terminal; }
    ReplayScrubber* scrubber() const { return m_scrubber; }
    ActivityView* activityView() const { return m_activity; }
    QToolButton* playButton() const { return m_play; }
    QToolButton* nextEventButton() const { return m_next; }
    QToolButton* previousEventButton() const { return m_previous; }
    QToolButton* exportButton() const { return m_export; }
    QComboBox* speedBox() const { return m_speed; }
    // Off: pauses over 2 s play as 2 s (the note beside it says so); on: as long as they were.
    QCheckBox* realTimeBox() const { return m_realTime; }
    QLabel* idleNote() const { return m_idleNote; }
    QLineEdit* timeEdit() const { return m_time; }
    QLineEdit* searchEdit() const { return m_search; }
    QListWidget* searchResults() const { return m_hits; }
    QLabel* positionLabel() const { return m_positionLabel; }
    // The line under the controls: what the last action did or why it failed.
    QString statusText() const;

  Q_SIGNALS:
    void exported(const QString& path);
    // The position moved (or a recording opened): `executions` had run by `ns`.
    void executionsReached(int executions, qint64 ns);
    // No recording shown any more.
    void closed();

  protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    QWidget* buildControls();
    QWidget* buildSearchPanel();
    void loadActivity();
    void onPositionChanged(qint64 ns);
    void onPlayingChanged(bool playing);
    void followActivity(qint64 ns);
    void onActivityClicked(const QModelIndex& proxyIndex);
    void setStatus(const QString& text, bool problem = false);
    void fitTerminalPane();
    static std::optional<ExportChoice> askExportFile(QWidget* parent, const QString& sessionId);

    ReplayController* m_controller = nullptr;
    TerminalWidget* m_terminal = nullptr;
    ReplayScrubber* m_scrubber = nullptr;
    ActivityView* m_activity; // the timeline: not ours
    QToolButton* m_play = nullptr;
    QToolButton* m_next = nullptr;
    QToolButton* m_previous = nullptr;
    QToolButton* m_export = nullptr;
    QComboBox* m_speed = nullptr;
    QCheckBox* m_realTime = nullptr;
    QLabel* m_idleNote = nullptr;
    QLineEdit* m_time = nullptr;
    QLineEdit* m_search = nullptr;
    QListWidget* m_hits = nullptr;
    QLabel* m_positionLabel = nullptr;
    QLabel* m_status = nullptr;
    QSplitter* m_split = nullptr; // terminal | search
    QString m_searched;           // what the hits are of
    ExportChooser m_chooser;
    int m_activityRow = -1;               // the activity event selected for the position
    std::vector<qint64> m_executionTimes; // when each execution ran, in order
    bool m_fitPending = false;            // the terminal pane is still to fit the recording's width
    int m_fittedColumns = 0;              // the width it was fitted to
};

} // namespace sbui
