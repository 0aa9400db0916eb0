// "New session": workspace folder, policy (preset or file), command (agent CLIs found on PATH
// offered first), network mode, limits and approval timeout. Shows the effective policy and
// validates with the core's own checks before anything starts: those read files, so they run
// on a thread of their own once typing pauses, never on the GUI thread. The preset and the
// approval timeout start from the user's settings.
#pragma once

#include "ResumeBaseline.h"
#include "SessionLauncher.h"
#include "files/TaskQueue.h"

#include <QDialog>
#include <cstdint>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QToolButton;
class QSpinBox;
class QTimer;

namespace sbui {

class NewSessionDialog : public QDialog {
    Q_OBJECT
  public:
    explicit NewSessionDialog(QWidget* parent = nullptr);

    void setWorkspace(const QString& folder);
    void setCommand(const QString& commandLine);
    void setPreset(const QString& preset);
    void setPolicyFile(const QString& file);
    void setNetwork(const QString& mode); // "", "none", "filtered", "host"
    // Resuming: the new session goes on with the ended session `id`'s changes, over its
    // `workspace` (which is then not editable).
    void setResume(const QString& id, const QString& workspace);
    // Resuming: starts from the policy and limits the ended session ran under (its file or
    // preset, else a copy of the recorded document in its folder), and warns of any choice
    // that loosens them.
    void setResumeBaseline(const ResumeBaseline& baseline);
    // The session to start; valid when isValid().
    LaunchRequest request() const;
    // Checked, and nothing stops it (false while a check is under way).
    bool isValid() const { return !m_checking && m_problem.isEmpty(); }
    // A change since the last check has not been checked yet; problem() and warning() are the
    // last check's until it has.
    bool isChecking() const { return m_checking; }
    // How many checks ran, for tests: typing a word is one check, not one per key.
    int checksRun() const { return m_checksRun; }
    // What stops the session from starting, or empty.
    QString problem() const { return m_problem; }
    QString warning() const;
    QString effectivePolicyText() const;

    QLineEdit* workspaceEdit() const { return m_workspace; }
    QComboBox* commandBox() const { return m_command; }
    QComboBox* policyBox() const { return m_policy; }
    QCheckBox* observeBox() const { return m_observe; }
    QComboBox* networkBox() const { return m_network; }
    // "As the policy says", then one entry per imported image.
    QComboBox* systemBox() const { return m_system; }
    QSpinBox* memoryBox() const { return m_memory; }
    QSpinBox* pidsBox() const { return m_pids; }
    QSpinBox* cpuBox() const { return m_cpu; }
    QSpinBox* wallBox() const { return m_wall; }
    QSpinBox* approvalTimeoutBox() const { return m_approvalTimeout; }
    QPushButton* startButton() const;
    QToolButton* createFolderButton() const { return m_createFolder; }

    // Agent programs found on PATH, in the order offered.
    static QStringList agentsOnPath();

  private:
    // What the checks found, for the request they were given (`generation`).
    struct Checked {
        std::uint64_t generation = 0;
        QString problem, warning, preview;
    };
    static Checked check(const LaunchRequest& r, const QString& commandLine,
                         const std::optional<sb::Policy>& ran);
    void revalidate();
    void runCheck();
    void showChecked(const Checked& checked);
    void policyChanged();
    void browseWorkspace();
    void browsePolicy();

    QLineEdit* m_workspace;
    QToolButton* m_createFolder;
    QComboBox* m_command;
    QComboBox* m_policy;
    QComboBox* m_network;
    QComboBox* m_system;
    QString m_resume;                // setResume()'s session
    std::optional<sb::Policy> m_ran; // the policy it ran under, when known
    QToolButton* m_browse;           // the workspace's, off when resuming
    QSpinBox *m_memory, *m_pids, *m_cpu, *m_wall;
    QSpinBox* m_approvalTimeout;
    QCheckBox* m_observe;
    QLabel* m_message;
    QPlainTextEdit* m_preview;
    QDialogButtonBox* m_buttons;
    int m_fileItem = 0; // the "Policy file…" entry
    QString m_policyFile;
    QString m_problem, m_warning;
    bool m_loadingLimits = false;
    QTimer* m_checkTimer;           // the pause in typing after which the check runs
    std::uint64_t m_generation = 0; // of the form; a check of an older one is dropped
    bool m_checking = false;
    int m_checksRun = 0;
    TaskQueue m_checks; // last: joined before the rest of the dialog goes
};

} // namespace sbui
