// One change of the workspace, shown for review: a text diff (unified or side by side, with
// intra-line highlights, white space ignored on request), the sizes and types of binary
// files, or an image before and after. Large texts are compared on a worker thread.
#pragma once

#include "DiffModel.h"
#include "TaskQueue.h"
#include "workspace/Workspace.h"

#include <QImage>
#include <QString>
#include <QWidget>
#include <memory>

class QAction;
class QLabel;
class QScrollArea;
class QScrollBar;
class QStackedWidget;
class QTableView;
class QToolBar;
class QToolButton;

namespace sbui {

class DiffView : public QWidget {
    Q_OBJECT

  public:
    enum class Page { Empty, Text, Binary, Image, Message };
    using Layout = DiffModel::Layout;

    explicit DiffView(QWidget* parent = nullptr);
    ~DiffView() override;

    // Shows `path`'s change between the real project (before) and the session (after).
    // `changed` false: the path holds no change (any more), whatever its two sides exist as:
    // once applied or discarded it reads the same on both sides.
    void showChange(const QString& path, const sb::ChangeContent& content, bool changed = true);
    // Shows a text instead of a diff: a folder, an error.
    void showMessage(const QString& title, const QString& text);
    void clear();

    void setLayoutMode(Layout layout);
    Layout layoutMode() const;
    void setIgnoreWhitespace(bool ignore);
    bool ignoreWhitespace() const;
    void setWholeFile(bool whole);

    Page page() const { return m_page; }
    QString path() const { return m_path; }
    // The header above the diff as plain text: the path and what happened to it.
    QString titleText() const { return m_titleText; }
    bool isComputing() const { return m_computing; }
    DiffModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    // Side by side, when a line is longer than its side: pans the text of both sides.
    QScrollBar* panBar() const { return m_pan; }
    // The shown change as `diff -u` would print it (empty for binaries and messages).
    QString unifiedText() const;
    // The text of the binary, image or message page.
    QString summaryText() const;
    QImage beforeImage() const { return m_beforeImage; }
    QImage afterImage() const { return m_afterImage; }
    QAction* sideBySideAction() const { return m_sideBySide; }
    QAction* ignoreWhitespaceAction() const { return m_ignoreWhitespace; }
    QAction* wholeFileAction() const { return m_wholeFile; }
    // The toggles as a menu, shown instead of them in a narrow pane.
    QToolButton* viewButton() const { return m_viewButton; }

  Q_SIGNALS:
    // The requested change is on screen (a large one a moment after showChange).
    void shown();

  protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void recompute();
    void showResult(std::shared_ptr<const diff::Result> result);
    void showBinary();
    void showImages();
    void setPage(Page page);
    void rebuildRows();
    void updateColumnWidths();
    QString sideText(const sb::ChangeSide& side, const QString& what) const;

    QLabel* m_title = nullptr;
    QLabel* m_stats = nullptr;
    QToolBar* m_toggles = nullptr;       // the view's toggles, where they fit
    QToolButton* m_viewButton = nullptr; // the same as a menu, in a narrow pane
    QStackedWidget* m_stack = nullptr;
    QTableView* m_table = nullptr;
    QScrollBar* m_pan = nullptr;   // side by side: pans both sides' text
    QWidget* m_textPage = nullptr; // the table and m_pan
    DiffModel* m_model = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_beforeCaption = nullptr;
    QLabel* m_afterCaption = nullptr;
    QLabel* m_beforeLabel = nullptr;
    QLabel* m_afterLabel = nullptr;
    QWidget* m_imagePage = nullptr;
    QScrollArea* m_imageScroll = nullptr;
    QLabel* m_message = nullptr;
    QAction* m_sideBySide = nullptr;
    QAction* m_ignoreWhitespace = nullptr;
    QAction* m_wholeFile = nullptr;

    Page m_page = Page::Empty;
    QString m_path;
    QString m_titleText;
    std::shared_ptr<const sb::ChangeContent> m_content;
    std::shared_ptr<const diff::Result> m_result;
    QImage m_beforeImage;
    QImage m_afterImage;
    bool m_computing = false;
    bool m_changed = true;     // false: the path on screen holds no change (any more)
    bool m_refreshing = false; // a new version of the file on screen is coming
    int m_generation = 0;
    TaskQueue m_queue; // last: joined before the rest goes
};

} // namespace sbui
