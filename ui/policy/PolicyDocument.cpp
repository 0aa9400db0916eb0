#include "PolicyDocument.h"

#include "CommandRulesModel.h"
#include "NetworkRulesModel.h"
#include "PolicyTester.h"
#include "RuleText.h"
#include "policy/PolicyEdit.h"
#include "policy/PolicyJson.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace sbui {
namespace {

constexpr qint64 kMaxPolicyBytes = 1 << 20; // the parser refuses more anyway

QString configHome()
{
    const QString xdg = qEnvironmentVariable("XDG_CONFIG_HOME");
    return xdg.startsWith(u'/') ? xdg : QDir::homePath() + QStringLiteral("/.config");
}

QString fromStd(const std::string& s)
{
    return QString::fromStdString(s);
}

// Whether `policy` has the command and network rules (and defaults) of `running`, a session's
// policy in force: what the Policy tab shows and its tester decides by.
bool sameRules(const sb::Policy& policy, const nlohmann::json& running)
{
    const auto mine = nlohmann::json::parse(sb::policyToJson(policy).dump());
    const auto theirs = [&](const char* section, const char* key) {
        return running.contains(section) && running[section].is_object()
                   ? running[section].value(key, nlohmann::json())
                   : nlohmann::json();
    };
    for (const char* section : {"commands", "network"})
        for (const char* key : {"default", "rules"})
            if (mine[section].value(key, nlohmann::json()) != theirs(section, key)) return false;
    return true;
}

} // namespace

PolicyDocument::PolicyDocument(QObject* parent)
    : QObject(parent), m_network(new NetworkRulesModel(this)),
      m_learnedNetwork(new NetworkRulesModel(this)), m_commands(new CommandRulesModel(this)),
      m_learnedCommands(new CommandRulesModel(this))
{
    m_learnedNetwork->setReadOnly(true);
    m_learnedCommands->setReadOnly(true);
    connect(m_network, &RuleTableModel::edited, this, &PolicyDocument::onEdited);
    connect(m_commands, &RuleTableModel::edited, this, &PolicyDocument::onEdited);
    // A session answering "always" writes the learned-rules file while it is shown.
    auto changed = [this] {
        if (!m_learnedPath.isEmpty() && QFileInfo::exists(m_learnedPath) &&
            !m_watcher.files().contains(m_learnedPath))
            m_watcher.addPath(m_learnedPath);
        reloadLearned();
    };
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, changed);
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, changed);
}

PolicyDocument::~PolicyDocument() = default;

bool PolicyDocument::openFile(const QString& path, QString* error)
{
    if (!loadFile(path, error)) return false;
    finishOpen({}, {}, SessionShown());
    return true;
}

bool PolicyDocument::openPreset(const QString& name, QString* error)
{
    if (!loadPreset(name, error)) return false;
    finishOpen({}, {}, SessionShown());
    return true;
}

// Every open ends here: whose policy it is is set before the signal, so what listens (the
// editor's header) reads the new document's session, not the one shown before.
void PolicyDocument::finishOpen(const QString& sessionId, const QString& learnedFile,
                                const SessionShown& shown)
{
    m_sessionId = sessionId;
    m_fileDiffers = shown.fileDiffers;
    m_fileProblem = shown.fileProblem;
    m_recorded = shown.recorded;
    m_sessionAnswers = {};
    if (!learnedFile.isEmpty() && learnedFile != m_learnedPath) setLearnedPath(learnedFile);
    Q_EMIT opened();
}

bool PolicyDocument::loadFile(const QString& path, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error) *error = tr("Cannot read %1: %2").arg(path, file.errorString());
        return false;
    }
    if (file.size() > kMaxPolicyBytes) {
        if (error) *error = tr("%1 is larger than 1 MiB: not a policy.").arg(path);
        return false;
    }
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (!load(file.readAll().toStdString(), absolute, error)) return false;
    m_path = absolute;
    m_preset.clear();
    m_readOnly = !QFileInfo(absolute).isWritable();
    setLearnedPath(fromStd(sb::learnedRulesPath(absolute.toStdString()).string()));
    return true;
}

bool PolicyDocument::loadPreset(const QString& name, QString* error)
{
    if (name.isEmpty() || name.startsWith(u'.') || name.contains(u'/')) {
        if (error) *error = tr("There is no preset “%1”.").arg(name);
        return false;
    }
    const QString path = fromStd((sb::presetDirectory() / (name.toStdString() + ".json")).string());
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error) *error = tr("There is no preset “%1”.").arg(name);
        return false;
    }
    if (!load(file.readAll().toStdString(), tr("preset %1").arg(name), error)) return false;
    m_path.clear();
    m_preset = name;
    m_readOnly = true;
    setLearnedPath(fromStd(sb::learnedRulesPathForPreset(name.toStdString()).string()));
    return true;
}

bool PolicyDocument::openSession(const QString& sessionId, const QString& policyFile,
                                 const QString& preset, const QString& learnedFile,
                                 const nlohmann::json& effective, QString* error, bool preferFile)
{
    QString fileError;
    SessionShown shown;
    bool ok = false;
    if (!policyFile.isEmpty())
        ok = loadFile(policyFile, &fileError);
    else if (!preset.isEmpty())
        ok = loadPreset(preset, &fileError);
    const QString source = !policyFile.isEmpty() ? policyFile
                           : !preset.isEmpty()   ? tr("preset %1").arg(preset)
                                                 : QString();
    const bool runsOther = effective.is_object() && !preferFile &&
                           (!ok ? !source.isEmpty() : !sameRules(m_base, effective));
    if (runsOther || (!ok && source.isEmpty() && effective.is_object())) {
        ok = loadJson(effective, sessionId, error);
        shown = {source, fileError, false};
    } else if (!ok && error) {
        *error = !fileError.isEmpty()
                     ? fileError
                     : tr("Session %1 did not say which policy it runs.").arg(sessionId);
    }
    if (!ok) return false;
    finishOpen(sessionId, learnedFile, shown);
    return true;
}

bool PolicyDocument::openRecorded(const QString& sessionId, const nlohmann::json& document,
                                  QString* error)
{
    if (!loadJson(document, sessionId, error)) return false;
    finishOpen(sessionId, {}, {{}, {}, true});
    return true;
}

bool PolicyDocument::loadJson(const nlohmann::json& policy, const QString& sessionId,
                              QString* error)
{
    if (!load(policy.dump(2) + '\n', tr("the policy of session %1").arg(sessionId), error))
        return false;
    m_path.clear();
    m_preset.clear();
    m_readOnly = true;
    setLearnedPath(QString());
    return true;
}

void PolicyDocument::setSessionAnswers(sb::SessionAnswers answers)
{
    m_sessionAnswers = std::move(answers);
    Q_EMIT sessionAnswersChanged();
}

void PolicyDocument::close()
{
    m_sessionAnswers = {};
    m_open = false;
    m_readOnly = false;
    m_path.clear();
    m_preset.clear();
    m_sessionId.clear();
    m_fileDiffers.clear();
    m_fileProblem.clear();
    m_recorded = false;
    m_text.clear();
    m_base = sb::Policy();
    m_droppedLearned.clear();
    m_network->setRules({});
    m_commands->setRules({});
    setLearnedPath(QString());
    m_savedState = state();
    const bool was = std::exchange(m_modified, false);
    Q_EMIT opened();
    if (was) Q_EMIT modifiedChanged(false);
}

bool PolicyDocument::load(std::string text, const QString& origin, QString* error)
{
    auto policy = sb::parsePolicy(text, origin.toStdString());
    if (!policy) {
        if (error) *error = fromStd(policy.error().message);
        return false;
    }
    m_text = std::move(text);
    m_base = std::move(*policy);
    m_open = true;
    m_droppedLearned.clear();
    m_network->setRules(m_base.network.rules);
    m_commands->setRules(m_base.commands.rules);
    m_savedState = state();
    const bool was = std::exchange(m_modified, false);
    if (was) Q_EMIT modifiedChanged(false);
    return true;
}

void PolicyDocument::revert()
{
    if (!m_open) return;
    QString error;
    load(m_text, m_path.isEmpty() ? tr("the policy") : m_path, &error);
    reloadLearned();
    Q_EMIT opened();
}

void PolicyDocument::setLearnedPath(const QString& path)
{
    if (!m_watcher.files().isEmpty()) m_watcher.removePaths(m_watcher.files());
    if (!m_watcher.directories().isEmpty()) m_watcher.removePaths(m_watcher.directories());
    m_learnedPath = path;
    if (!path.isEmpty()) {
        const QString folder = QFileInfo(path).absolutePath();
        if (QFileInfo::exists(folder)) m_watcher.addPath(folder);
        if (QFileInfo::exists(path)) m_watcher.addPath(path);
    }
    reloadLearned();
}

void PolicyDocument::reloadLearned()
{
    m_learnedProblem.clear();
    sb::LearnedRules rules;
    if (!m_learnedPath.isEmpty()) {
        auto loaded = sb::loadLearnedRules(m_learnedPath.toStdString());
        if (loaded)
            rules = std::move(*loaded);
        else
            m_learnedProblem = fromStd(loaded.error().message);
    }
    // Rules the user removed stay removed until the save writes the file.
    std::erase_if(rules.network, [&](const auto& r) { return m_droppedLearned.count(keyOf(r)); });
    std::erase_if(rules.commands, [&](const auto& r) { return m_droppedLearned.count(keyOf(r)); });
    m_learnedNetwork->setRules(rules.network);
    m_learnedCommands->setRules(rules.commands);
    Q_EMIT edited();
}

nlohmann::json PolicyDocument::documentJson() const
{
    return nlohmann::json::parse(m_text, nullptr, /*allow_exceptions=*/false,
                                 /*ignore_comments=*/true);
}

QString PolicyDocument::suggestedSavePath() const
{
    QString name = !m_preset.isEmpty()      ? m_preset
                   : !m_path.isEmpty()      ? QFileInfo(m_path).completeBaseName()
                   : !m_sessionId.isEmpty() ? tr("session-%1").arg(m_sessionId)
                                            : QStringLiteral("policy");
    return configHome() + QStringLiteral("/sandbench/policies/") + name + QStringLiteral(".json");
}

void PolicyDocument::setNetworkMode(sb::NetworkMode mode)
{
    if (m_base.network.mode == mode) return;
    m_base.network.mode = mode;
    onEdited();
}

void PolicyDocument::setNetworkDefault(sb::RuleAction action)
{
    if (m_base.network.defaultAction == action) return;
    m_base.network.defaultAction = action;
    onEdited();
}

void PolicyDocument::setCommandDefault(sb::RuleAction action)
{
    if (m_base.commands.defaultAction == action) return;
    m_base.commands.defaultAction = action;
    onEdited();
}

sb::Policy PolicyDocument::policy() const
{
    sb::Policy p = m_base;
    p.network.rules = m_network->rules();
    p.commands.rules = m_commands->rules();
    return p;
}

sb::LearnedRules PolicyDocument::learned() const
{
    return {m_learnedCommands->rules(), m_learnedNetwork->rules()};
}

std::string PolicyDocument::keyOf(const sb::NetworkRule& rule)
{
    std::string key = "n " + std::string(sb::toString(rule.action)) + ' ' + rule.host;
    for (std::uint16_t p : rule.ports)
        key += ' ' + std::to_string(p);
    return key;
}

std::string PolicyDocument::keyOf(const sb::CommandRule& rule)
{
    return "c " + std::string(sb::toString(rule.action)) + ' ' + rule.match;
}

void PolicyDocument::removeLearnedNetwork(int row)
{
    if (row < 0 || row >= m_learnedNetwork->rowCount()) return;
    m_droppedLearned.insert(keyOf(m_learnedNetwork->rule(row)));
    m_learnedNetwork->removeRows(row, 1);
    onEdited();
}

void PolicyDocument::removeLearnedCommand(int row)
{
    if (row < 0 || row >= m_learnedCommands->rowCount()) return;
    m_droppedLearned.insert(keyOf(m_learnedCommands->rule(row)));
    m_learnedCommands->removeRows(row, 1);
    onEdited();
}

int PolicyDocument::promoteLearnedNetwork(int row)
{
    if (row < 0 || row >= m_learnedNetwork->rowCount()) return -1;
    const int at =
        PolicyTester::effectivePosition(m_network->rules(), m_learnedNetwork->rules(), row);
    m_network->insertRule(at, m_learnedNetwork->rule(row));
    removeLearnedNetwork(row);
    return at;
}

int PolicyDocument::promoteLearnedCommand(int row)
{
    if (row < 0 || row >= m_learnedCommands->rowCount()) return -1;
    const int at =
        PolicyTester::effectivePosition(m_commands->rules(), m_learnedCommands->rules(), row);
    m_commands->insertRule(at, m_learnedCommands->rule(row));
    removeLearnedCommand(row);
    return at;
}

QStringList PolicyDocument::problems() const
{
    QStringList out;
    for (int r : m_network->problemRows())
        out << tr("Network rule %1: %2").arg(r + 1).arg(m_network->problem(r));
    for (int r : m_commands->problemRows())
        out << tr("Command rule %1: %2").arg(r + 1).arg(m_commands->problem(r));
    return out;
}

bool PolicyDocument::save(QString* error)
{
    if (!m_open) return false;
    if (m_readOnly) {
        if (error) *error = tr("This policy is read-only: save it under a new name.");
        return false;
    }
    return writeTo(m_path, error);
}

bool PolicyDocument::saveAs(const QString& path, QString* error)
{
    if (!m_open || path.isEmpty()) return false;
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (!writeTo(absolute, error)) return false;
    // From now on the copy is what is edited; its learned rules are its own (none yet).
    m_path = absolute;
    m_preset.clear();
    m_readOnly = false;
    setLearnedPath(fromStd(sb::learnedRulesPath(absolute.toStdString()).string()));
    Q_EMIT opened();
    return true;
}

bool PolicyDocument::writeTo(const QString& path, QString* error)
{
    if (const QStringList p = problems(); !p.isEmpty()) {
        if (error) *error = p.join(u'\n');
        return false;
    }
    const std::string origin = m_path.isEmpty() ? path.toStdString() : m_path.toStdString();
    const sb::Policy edited = policy();
    auto text = sb::rewritePolicyRules(m_text, origin, edited);
    if (!text) {
        if (error) *error = fromStd(text.error().message);
        return false;
    }
    // The whole document as the supervisor will read it.
    auto parsed = sb::parsePolicy(*text, path.toStdString());
    if (!parsed) {
        if (error) *error = fromStd(parsed.error().message);
        return false;
    }
    QDir().mkpath(QFileInfo(path).absolutePath());
    if (auto e = sb::savePolicyFile(path.toStdString(), *text)) {
        if (error) *error = fromStd(e->describe());
        return false;
    }
    m_text = std::move(*text);
    m_base = std::move(*parsed);
    m_savedState = state();
    const bool learnedOk = writeLearned(error);
    onEdited();
    Q_EMIT saved();
    return learnedOk;
}

bool PolicyDocument::writeLearned(QString* error)
{
    if (m_droppedLearned.empty() || m_learnedPath.isEmpty()) return true;
    // Read again: a session may have learned more since the list was shown.
    auto current = sb::loadLearnedRules(m_learnedPath.toStdString());
    if (!current) {
        if (error)
            *error = tr("The policy was saved, but the learned rules were left as they were: %1")
                         .arg(fromStd(current.error().message));
        return false;
    }
    std::erase_if(current->network,
                  [&](const auto& r) { return m_droppedLearned.count(keyOf(r)); });
    std::erase_if(current->commands,
                  [&](const auto& r) { return m_droppedLearned.count(keyOf(r)); });
    if (auto e = sb::writeLearnedRules(m_learnedPath.toStdString(), *current)) {
        if (error)
            *error = tr("The policy was saved, but the learned rules were left as they were: %1")
                         .arg(fromStd(e->describe()));
        return false;
    }
    m_droppedLearned.clear();
    return true;
}

nlohmann::json PolicyDocument::state() const
{
    return {{"mode", sb::toString(m_base.network.mode)},
            {"network_default", sb::toString(m_base.network.defaultAction)},
            {"network", m_network->entries()},
            {"commands_default", sb::toString(m_base.commands.defaultAction)},
            {"commands", m_commands->entries()}};
}

void PolicyDocument::onEdited()
{
    const bool modified = m_open && (state() != m_savedState || !m_droppedLearned.empty());
    if (modified != m_modified) {
        m_modified = modified;
        Q_EMIT modifiedChanged(modified);
    }
    Q_EMIT edited();
}

} // namespace sbui
