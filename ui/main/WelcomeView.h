// The first run: what the window shows while there are no sessions. It greets, says what this
// machine's kernel offers the sandbox (the doctor's checks, each gap with its fix) and offers the
// two ways to begin: the built-in demo and a new session.
#pragma once

#include "sandbox/Doctor.h"

#include <QWidget>
#include <functional>
#include <vector>

class QLabel;
class QPushButton;
class QVBoxLayout;

namespace sbui {

class WelcomeView : public QWidget {
    Q_OBJECT
  public:
    using DoctorFunction = std::function<std::vector<sb::DoctorCheck>()>;

    // `doctor` runs the checks; the default is the core's own (sb::runDoctor), which probes the
    // kernel in short-lived child processes and takes a few milliseconds.
    explicit WelcomeView(QWidget* parent = nullptr);
    explicit WelcomeView(DoctorFunction doctor, QWidget* parent = nullptr);

    // Runs the checks again and shows their results ("Check again" does the same).
    void refresh();

    const std::vector<sb::DoctorCheck>& checks() const { return m_checks; }
    // False when a required check failed: no sandbox can start until its fix is applied.
    bool sandboxUsable() const;

    QPushButton* demoButton() const { return m_demo; }
    QPushButton* newSessionButton() const { return m_newSession; }

  Q_SIGNALS:
    void demoRequested();
    void newSessionRequested();

  private:
    QWidget* makeCheckRow(const sb::DoctorCheck& check);

    DoctorFunction m_doctor;
    std::vector<sb::DoctorCheck> m_checks;
    QPushButton* m_demo;
    QPushButton* m_newSession;
    QLabel* m_summary;
    QVBoxLayout* m_rows;
};

} // namespace sbui
