// "New session": workspace folder, policy (preset or file), command (agent CLIs found on PATH
// offered first), network mode, limits and approval timeout. Shows the effective policy and
// validates with the core's own checks before anything starts. The preset and the approval
// timeout start from the user's settings.
#pragma once

#include "SessionLauncher.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

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
    // The session to start; valid when isValid().
    LaunchRequest request() const;
    bool isValid() const { return m_problem.isEmpty(); }
    // What stops the session from starting, or empty.
    QString problem() const { return m_problem; }
    QString warning() const;
    QString effectivePolicyText() const;

    QLineEdit* workspaceEdit() const { return m_workspace; }
    QComboBox* commandBox() const { return m_command; }
    QComboBox* policyBox() const { return m_policy; }
    QComboBox* networkBox() const { return m_network; }
    QSpinBox* memoryBox() const { return m_memory; }
    QSpinBox* pidsBox() const { return m_pids; }
    QSpinBox* cpuBox() const { return m_cpu; }
    QSpinBox* wallBox() const { return m_wall; }
    QSpinBox* approvalTimeoutBox() const { return m_approvalTimeout; }
    QPushButton* startButton() const;

    // Agent programs found on PATH, in the order offered.
    static QStringList agentsOnPath();

  private:
    void revalidate();
    void policyChanged();
    void browseWorkspace();
    void browsePolicy();

    QLineEdit* m_workspace;
    QComboBox* m_command;
    QComboBox* m_policy;
    QComboBox* m_network;
    QSpinBox *m_memory, *m_pids, *m_cpu, *m_wall;
    QSpinBox* m_approvalTimeout;
    QLabel* m_message;
    QPlainTextEdit* m_preview;
    QDialogButtonBox* m_buttons;
    int m_fileItem = 0; // the "Policy file…" entry
    QString m_policyFile;
    QString m_problem, m_warning;
    bool m_loadingLimits = false;
};

} // namespace sbui
