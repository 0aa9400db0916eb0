// The window's Policy tab: the policy of the shown running session, or any policy file opened
// from the File menu, with its Network and Commands pages. Saving writes the file through the
// core (comments kept); a preset or a session's built-in policy is read-only and saved under a
// new name. When the saved policy is the shown session's, the session is sent it at once
// (SessionConnection::updatePolicy) and the editor shows what it applied and what waits for a
// new session.
#pragma once

#include <QPointer>
#include <QStringList>
#include <QWidget>
#include <nlohmann/json_fwd.hpp>

class QAction;
class QBoxLayout;
class QLabel;
class QStackedWidget;
class QTabWidget;
class QToolBar;
class QToolButton;

namespace sbui {

class ActivityModel;
class CommandPolicyPage;
class MessageBar;
class NetworkPolicyPage;
class PolicyDocument;
class SessionConnection;

class PolicyEditor : public QWidget {
    Q_OBJECT
  public:
    explicit PolicyEditor(QWidget* parent = nullptr);
    ~PolicyEditor() override;

    PolicyDocument* document() const { return m_doc; }
    NetworkPolicyPage* networkPage() const { return m_network; }
    CommandPolicyPage* commandPage() const { return m_commands; }
    QTabWidget* pages() const { return m_pages; }
    QAction* openAction() const { return m_open; }
    QAction* saveAction() const { return m_save; }
    QAction* saveAsAction() const { return m_saveAs; }
    QAction* revertAction() const { return m_revert; }
    // The message above the pages (a refused save, what a session applied); empty when none.
    QString messageText() const;
    QString titleText() const;
    QString subtitleText() const; // where the policy is, and which session runs it
    bool hasDocument() const;

    // Follows the window's activity timeline: the pages' "observed" lists come from it.
    void setActivitySource(ActivityModel* activity);
    // The shown session: a live one's policy is loaded (after maybeSave(), which the window
    // asks first); nullptr (another session, or a recorded one) closes a session's policy but
    // keeps a file the user opened.
    void showSession(SessionConnection* connection);
    // An ended session: the policy it ran under (`document`, from its recording), read-only;
    // a null document (an older recording) says it was not kept.
    void showRecorded(const QString& sessionId, const nlohmann::json& document);
    // Shown when the session runs other rules than its file: gives it the file's.
    QAction* applyToSessionAction() const { return m_applyToSession; }
    // The text of the page shown while no policy is open.
    QString emptyText() const;

    // Each asks about unsaved changes first; false when not opened (the reason is shown).
    bool openFile(const QString& path);
    bool openPreset(const QString& name);
    // Asks for a file (prompt::openFileName) and opens it.
    bool openFileDialog();
    // Saves; a read-only policy goes to saveAs(). False when refused (the reasons are shown).
    bool save();
    // Asks where (prompt::saveFileName; ~/.config/sandbench/policies/ proposed) and saves there.
    bool saveAs();
    void revert();
    // Unsaved changes: Save, Discard or Cancel (prompt::askUnsaved). False when the user
    // cancels or the save fails: whatever was about to replace the document must not.
    bool maybeSave();

  Q_SIGNALS:
    // A document was opened or closed (the window shows the tab, titles it).
    void documentChanged();
    void modifiedChanged(bool modified);
    // The shown session answered a policy update.
    void sessionUpdated(const QStringList& applied, const QStringList& deferred);

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    void buildActions();
    void commitEdits();
    void updateHeader();
    void setDefaultEmptyText();
    void pushToSession();
    void applyFileToSession();
    void showSavedForEndedSession();
    void showError(const QString& text);
    void onSessionUpdated(const QStringList& applied, const QStringList& deferred);
    static QString describeParts(const QStringList& parts);

    PolicyDocument* m_doc;
    QStackedWidget* m_stack;
    QWidget* m_empty;
    QWidget* m_editor;
    QLabel* m_title;
    QToolBar* m_toolbar = nullptr;
    QBoxLayout* m_headRow = nullptr;
    QLabel* m_subtitle;
    MessageBar* m_message;
    QTabWidget* m_pages;
    NetworkPolicyPage* m_network;
    CommandPolicyPage* m_commands;
    QLabel* m_emptyText;
    QAction *m_open, *m_save, *m_saveAs, *m_revert, *m_applyToSession;
    QToolButton* m_presets;
    QPointer<SessionConnection> m_session;
    bool m_sending = false;  // a saved policy is on its way to the session
    bool m_applying = false; // and it is the session's file, given to it as it is
};

} // namespace sbui
