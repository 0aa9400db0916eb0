// The session's activity as a table: one row per event the supervisor sends (commands,
// connections, approvals, file changes, limits, lifecycle, errors; payloads as in
// docs/protocol.md and docs/recording.md). Events arrive one by one and are inserted in batches,
// so a flood of them costs one row insertion per batch, not per event. Each row keeps the event as
// compact JSON text (parsed again only for the details pane) and a lower-cased search text.
#pragma once

#include <QAbstractTableModel>
#include <QIcon>
#include <QString>
#include <QTimer>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

namespace sbui {

class ActivityModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { TimeColumn, KindColumn, SummaryColumn, DecisionColumn, ColumnCount };

    // What the kind filters toggle.
    enum class Category : std::uint8_t { Command, Network, Approval, File, Limit, Lifecycle };
    enum class Decision : std::uint8_t { None, Allowed, Denied, Asked, TimedOut };

    enum Role {
        CategoryRole = Qt::UserRole + 1, // int(Category)
        DecisionRole,                    // int(Decision)
        // True when the event ended in a refusal: denied, or timed out and then denied.
        RefusedRole,
        KindNameRole, // the event's "kind" as sent ("command", "error", …)
        TimeRole,     // qint64, time_unix_ms
        JsonRole,     // the event as indented JSON text
        SearchTextRole,
    };

    explicit ActivityModel(QObject* parent = nullptr);

    // Queues the event; it becomes a row at the next flush (the model's timer, soon after).
    void addEvent(const nlohmann::json& event);
    // Inserts every queued event now, in one batch.
    void flush();
    // Times are shown relative to this start (session start, wall clock ms); 0 shows hh:mm:ss.
    void setSessionStart(std::int64_t unixMs);
    // Another session: every row goes.
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // The event of a row, parsed again from its stored text.
    nlohmann::json event(int row) const;
    QString summary(int row) const;
    // The fields of a row's event as "name: value" lines, in the order they came.
    QString detailsText(int row) const;
    // The lower-cased text the search looks in: summary, and every field name and value.
    const std::string& searchText(int row) const;
    Category category(int row) const;
    Decision decision(int row) const;
    bool refused(int row) const;

    // A field's value for people: strings as they are, argv as a shell-quoted command line, the
    // rest as JSON.
    static QString fieldText(const std::string& key, const nlohmann::json& value);
    static QString categoryName(Category category);
    static QString decisionName(Decision decision);
    // As the Decision column says it: an allowed command is a program that *started* (what it
    // then does is confined by the sandbox, which reports no activity for it).
    static QString decisionName(Decision decision, Category category);
    static QIcon categoryIcon(Category category);
    // The kind as the table shows it ("command", "error"; translated).
    static QString kindLabel(const QString& kind);

  private:
    struct Row {
        std::int64_t timeUnixMs = 0;
        Category category = Category::Lifecycle;
        Decision decision = Decision::None;
        bool refused = false;
        QString kind;
        QString summary;
        std::string json;
        std::string search;
        // Approvals and the commands they hold: a command's id (its "id", or a request's
        // "command_id"), a request's id; -1 when none.
        std::int64_t commandId = -1, requestId = -1;
        bool outcome = false; // an approval's outcome
        bool refusal = false; // a call the sandbox refused, of the command `commandId`
    };
    // An outcome (row `at`) brings its request's row, and the asked command's, up to date.
    void applyOutcome(const Row& outcome, int first, int& lowest);
    // A refusal (row) marks the command that made it as refused too.
    void applyRefusal(const Row& refusal, int first, int& lowest);
    void rememberCommand(std::int64_t commandId, int at);
    Row& rowAt(int at, int first); // in m_rows, or in m_queued from `first` on
    static Row makeRow(const nlohmann::json& event);
    static QString fileSummary(const nlohmann::json& event);
    static QString limitSummary(const nlohmann::json& event);
    QString timeText(std::int64_t unixMs) const;

    std::vector<Row> m_rows;
    std::vector<Row> m_queued;
    std::unordered_map<std::int64_t, int> m_askedCommands; // command id -> row, while asked
    std::unordered_map<std::int64_t, int> m_openRequests;  // request id -> row, while open
    // Command id -> row of the latest commands allowed, for what the sandbox refused them.
    std::unordered_map<std::int64_t, int> m_commandRows;
    std::vector<QIcon> m_icons; // by Category
    std::int64_t m_startUnixMs = 0;
    QTimer m_flushTimer;
};

} // namespace sbui
