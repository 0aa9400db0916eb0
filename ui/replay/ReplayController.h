// The position in a recorded session, and a TerminalWidget kept showing the screen at that
// position. Seeking rebuilds the screen from the recording's keyframes (RecordingStore::screenAt)
// and repaints the terminal with its snapshot; playing feeds the output that follows in time
// order, scaled by the speed, with idle gaps longer than 2 s cut to 2 s (as `sandbench-cli
// replay` does) unless it plays in real time. Output is read from the database in chunks as
// playback needs it, so a long recording is never loaded whole.
//
// Position semantics: at position T the terminal shows every output event with t <= T.
#pragma once

#include "recording/RecordingExport.h"
#include "recording/RecordingStore.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

namespace sbui {

class TerminalWidget;

class ReplayController : public QObject {
    Q_OBJECT
  public:
    static constexpr double kMinSpeed = 0.25;
    static constexpr double kMaxSpeed = 16.0;
    static constexpr qint64 kMaxPauseNs = 2'000'000'000;

    // An activity event of the recording with its time since the start.
    struct Event {
        qint64 tNs = 0;
        nlohmann::json activity; // as the control socket would have sent it
    };

    // `terminal` is driven, not owned; it is made read-only.
    explicit ReplayController(TerminalWidget* terminal, QObject* parent = nullptr);
    ~ReplayController() override;

    // Opens a recording from the recordings database (or the database `file`: a remote
    // session's recording fetched here) and shows its first screen. On failure `error` says
    // why and nothing else changes.
    bool open(const QString& sessionId, QString* error, const QString& file = {});
    void close();
    bool isOpen() const { return m_store != nullptr; }
    QString sessionId() const { return m_id; }
    const sb::SessionRecord& session() const { return m_session; }
    qint64 startedUnixMs() const { return m_session.startedNs / 1'000'000; }

    qint64 durationNs() const { return m_durationNs; }
    qint64 positionNs() const { return m_positionNs; }
    bool isPlaying() const { return m_playing; }
    double speed() const { return m_speed; }
    // Activity events, oldest first.
    const std::vector<Event>& events() const { return m_events; }
    // The last activity event at or before `ns`, -1 when none.
    int eventIndexAt(qint64 ns) const;

    // Clamped to [0, duration]. Pauses nothing: a playing replay goes on from there.
    void seek(qint64 ns);
    // From the start again when at the end.
    void play();
    void pause();
    void togglePlaying() { m_playing ? pause() : play(); }
    // Clamped to [kMinSpeed, kMaxSpeed].
    void setSpeed(double speed);
    // On: idle gaps play as long as they were; off (the default): at most kMaxPauseNs each.
    void setRealTime(bool on) { m_realTime = on; }
    bool realTime() const { return m_realTime; }

    // Advances playback as if `wallMs` of real time had passed at the current speed (the timer
    // does this with the time it measured). Does nothing while paused.
    void step(qint64 wallMs);
    // Off: play() starts no timer, and only step() moves the position (tests, without sleeping).
    void setAutoAdvance(bool on);

    // Terminal text of this session holding `text`, oldest first.
    std::vector<sb::SearchHit> search(const QString& text, QString* error);
    // Through the core's export, atomically (a temporary file renamed over `path`).
    bool exportTo(sb::ExportFormat format, const QString& path, QString* error);

  Q_SIGNALS:
    void positionChanged(qint64 ns);
    void playingChanged(bool playing);
    // Playback reached the end of the recording.
    void finished();
    // Reading the recording failed during playback or a seek (the database went away).
    void failed(const QString& message);

  private:
    struct Chunk {
        qint64 tNs = 0;
        bool resize = false;
        unsigned rows = 0, cols = 0;
        QByteArray bytes;
    };

    void advance(qint64 recordingNs);
    bool loadMore();
    void applyThrough(qint64 tNs, QByteArray& output);
    void flushOutput(QByteArray& output);
    void refreshRunningSession();
    void onTick();
    void setPosition(qint64 ns);
    void fail(const sb::Error& error);

    TerminalWidget* m_terminal;
    std::unique_ptr<sb::RecordingStore> m_store;
    QString m_id;
    std::string m_idUtf8;
    sb::SessionRecord m_session;
    std::vector<Event> m_events;

    qint64 m_positionNs = 0;
    qint64 m_durationNs = 0;
    double m_speed = 1.0;
    bool m_playing = false;
    bool m_autoAdvance = true;
    bool m_realTime = false;
    // Recording time spent since the last output event (or seek) while playing: the part of an
    // idle gap already shown, which stops counting at kMaxPauseNs.
    qint64 m_idleNs = 0;

    // Output and resizes after the position, read ahead in chunks.
    std::deque<Chunk> m_ahead;
    qint64 m_loadedThroughNs = 0; // events with t <= this have been read
    bool m_exhausted = false;     // nothing after m_loadedThroughNs (when last read)

    QTimer m_tick;
    QElapsedTimer m_wall;
};

} // namespace sbui
