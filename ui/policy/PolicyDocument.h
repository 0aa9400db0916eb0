// One policy being edited: where it comes from (a file, a read-only preset, or a running
// session's), its network and command sections as editable models, and its learned rules apart.
// Saving goes through the core: the rows are checked (the core's rule readers), the document is
// rewritten keeping the user's comments (sb::rewritePolicyRules), checked whole (sb::parsePolicy)
// and written atomically (sb::savePolicyFile). Learned rules the user removed or promoted are
// dropped from the learned-rules file at the same time, re-read first so that rules a session
// learned meanwhile are kept.
#pragma once

#include "policy/LearnedRules.h"
#include "policy/Policy.h"
#include "policy/SessionAnswers.h"

#include <QFileSystemWatcher>
#include <QObject>
#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace sbui {

class CommandRulesModel;
class NetworkRulesModel;

class PolicyDocument : public QObject {
    Q_OBJECT
  public:
    explicit PolicyDocument(QObject* parent = nullptr);
    ~PolicyDocument() override;

    // Each replaces what is open, without asking (the editor asks first); false with `error`
    // when the policy does not load, and then the previous document stays.
    bool openFile(const QString& path, QString* error);
    bool openPreset(const QString& name, QString* error);
    // A running session's policy: its file, else its preset (both then edited as such), else its
    // effective policy as a read-only document. `learnedFile` overrides where its learned rules
    // are (the supervisor knows best).
    // When the session runs other command or network rules than its file (or preset) says now
    // (another session saved the file, or it was edited by hand), or the file cannot be read,
    // what the session runs is shown instead, read-only, and fileDiffers() names the file;
    // `preferFile` opens the file all the same (to give it to the session).
    bool openSession(const QString& sessionId, const QString& policyFile, const QString& preset,
                     const QString& learnedFile, const nlohmann::json& effective, QString* error,
                     bool preferFile = false);
    // The policy an ended session ran under (its recording's), read-only.
    bool openRecorded(const QString& sessionId, const nlohmann::json& document, QString* error);
    void close();
    // Back to the text last loaded or saved.
    void revert();

    bool isOpen() const { return m_open; }
    // A preset, a session's effective policy or an unwritable file: saved with saveAs().
    bool isReadOnly() const { return m_readOnly; }
    bool isModified() const { return m_modified; }
    QString filePath() const { return m_path; }
    QString presetName() const { return m_preset; }
    QString sessionId() const { return m_sessionId; }
    // The shown session's file (or "preset NAME") when it runs other rules than it: see
    // openSession(). Empty otherwise.
    QString fileDiffers() const { return m_fileDiffers; }
    // Why that file was not shown: it cannot be read (empty: it says other rules).
    QString fileProblem() const { return m_fileProblem; }
    // The policy shown is an ended session's, from its recording.
    bool isRecorded() const { return m_recorded; }
    // What the session shown has answered for itself (SessionConnection::sessionAnswers): the
    // tester applies them as the session does. Every open starts without.
    void setSessionAnswers(sb::SessionAnswers answers);
    const sb::SessionAnswers& sessionAnswers() const { return m_sessionAnswers; }
    QString learnedPath() const { return m_learnedPath; }
    // Why the learned rules could not be read (they are then shown as none and never written).
    QString learnedProblem() const { return m_learnedProblem; }
    // The text last loaded or saved, and that text as the JSON a supervisor is sent.
    const std::string& text() const { return m_text; }
    nlohmann::json documentJson() const;
    // Where Save As proposes to put a copy: ~/.config/sandbench/policies/NAME.json.
    QString suggestedSavePath() const;

    NetworkRulesModel* networkRules() const { return m_network; }
    NetworkRulesModel* learnedNetwork() const { return m_learnedNetwork; }
    CommandRulesModel* commandRules() const { return m_commands; }
    CommandRulesModel* learnedCommands() const { return m_learnedCommands; }

    sb::NetworkMode networkMode() const { return m_base.network.mode; }
    void setNetworkMode(sb::NetworkMode mode);
    sb::RuleAction networkDefault() const { return m_base.network.defaultAction; }
    void setNetworkDefault(sb::RuleAction action);
    sb::RuleAction commandDefault() const { return m_base.commands.defaultAction; }
    void setCommandDefault(sb::RuleAction action);

    // The policy as edited (rows with problems go as far as they can), learned rules apart.
    sb::Policy policy() const;
    sb::LearnedRules learned() const;

    // Learned rules: dropped from the file at the next save. Promoting one first puts it among
    // the user's rules where it took effect (sb::mergeLearned's order), so nothing changes until
    // the user edits it.
    void removeLearnedNetwork(int row);
    void removeLearnedCommand(int row);
    int promoteLearnedNetwork(int row);
    int promoteLearnedCommand(int row);

    // What stops a save, one a line: each rule with a problem, by its number.
    QStringList problems() const;
    // Writes the edited policy to its file. Refused (with the reasons) for problems, for a
    // read-only document, or when the core refuses the result.
    bool save(QString* error);
    // Writes it to `path` (folders created) and goes on editing that file.
    bool saveAs(const QString& path, QString* error);

  Q_SIGNALS:
    // Another document (or the same one reverted or saved under a new name) is shown.
    void opened();
    void modifiedChanged(bool modified);
    // Any change to what is edited: the testers evaluate again.
    void edited();
    void saved();
    void sessionAnswersChanged();

  private:
    // Read a policy in without telling anyone yet; finishOpen() then names its session and
    // emits opened().
    bool loadFile(const QString& path, QString* error);
    bool loadPreset(const QString& name, QString* error);
    struct SessionShown {
        QString fileDiffers, fileProblem;
        bool recorded = false;
    };
    void finishOpen(const QString& sessionId, const QString& learnedFile,
                    const SessionShown& shown);
    bool load(std::string text, const QString& origin, QString* error);
    // A policy given as JSON (a session's), read-only and in no file.
    bool loadJson(const nlohmann::json& policy, const QString& sessionId, QString* error);
    void setLearnedPath(const QString& path);
    void reloadLearned();
    bool writeLearned(QString* error);
    bool writeTo(const QString& path, QString* error);
    void onEdited();
    nlohmann::json state() const;
    static std::string keyOf(const sb::NetworkRule& rule);
    static std::string keyOf(const sb::CommandRule& rule);

    NetworkRulesModel* m_network;
    NetworkRulesModel* m_learnedNetwork;
    CommandRulesModel* m_commands;
    CommandRulesModel* m_learnedCommands;
    QFileSystemWatcher m_watcher;

    bool m_open = false;
    bool m_readOnly = false;
    bool m_modified = false;
    bool m_recorded = false;
    QString m_path, m_preset, m_sessionId, m_learnedPath, m_learnedProblem;
    QString m_fileDiffers, m_fileProblem;
    sb::SessionAnswers m_sessionAnswers;
    std::string m_text;
    sb::Policy m_base; // as loaded; network and command rules live in the models
    nlohmann::json m_savedState;
    // Learned rules the user removed or promoted, by action and pattern.
    std::set<std::string> m_droppedLearned;
};

} // namespace sbui
