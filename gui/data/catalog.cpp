#include "catalog.h"

#include "db/catalogrepository.h"
#include "db/evaluationrepository.h"
#include "db/overviewrepository.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <algorithm>

namespace kb::gui {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QStringList opsOf(const db::TaskRow& task) {
    QStringList ops;
    const QJsonObject meta =
        QJsonDocument::fromJson(QByteArray::fromStdString(task.metadataJson)).object();
    for (const auto& v : meta.value(QStringLiteral("ops")).toArray())
        ops << v.toString();
    ops.removeAll(QString());
    return ops.isEmpty() ? opsFromSource(q(task.source)) : ops;
}

} // namespace

bool TaskInfo::flagged() const {
    return std::any_of(validations.begin(), validations.end(),
                       [](const auto& v) { return !v.flags.isEmpty(); });
}

QStringList TaskInfo::flagTexts() const {
    QStringList out;
    for (const auto& v : validations) {
        for (const auto& f : v.flags)
            out << q(v.device) + QStringLiteral(": ") + f;
    }
    return out;
}

const db::ProviderRow* Catalog::findProvider(db::Id id) const {
    for (const auto& p : providers) {
        if (p.id == id)
            return &p;
    }
    return nullptr;
}

const db::ModelRow* Catalog::findModel(db::Id id) const {
    for (const auto& m : models) {
        if (m.id == id)
            return &m;
    }
    return nullptr;
}

const db::ModelRow* Catalog::findModelByName(const QString& name) const {
    const std::string n = name.toStdString();
    for (const auto& m : models) {
        if (m.name == n)
            return &m;
    }
    return nullptr;
}

std::vector<const TaskInfo*> Catalog::tasksOf(db::Id suiteId) const {
    std::vector<const TaskInfo*> out;
    for (const auto& t : tasks) {
        if (suiteId == 0 || t.task.suiteId == suiteId)
            out.push_back(&t);
    }
    return out;
}

const std::vector<db::BaselineRow>& Catalog::baselinesOf(const db::TaskRow& task) const {
    static const std::vector<db::BaselineRow> none;
    const auto it = baselines.find(task.sourceHash);
    return it == baselines.end() ? none : it->second;
}

ModelUsage Catalog::usageOf(db::Id modelId) const {
    const auto it = usage.find(modelId);
    return it == usage.end() ? ModelUsage{} : it->second;
}

QStringList opsFromSource(const QString& source) {
    static const QRegularExpression call(QStringLiteral(
        R"((?:\btorch\.(?:nn\.functional\.)?|\bF\.|\bnn\.)([A-Za-z_][A-Za-z0-9_]*)\s*\()"));
    static const QStringList ignored{
        QStringLiteral("Module"),      QStringLiteral("Parameter"), QStringLiteral("randn"),
        QStringLiteral("rand"),        QStringLiteral("randint"),   QStringLiteral("zeros"),
        QStringLiteral("ones"),        QStringLiteral("empty"),     QStringLiteral("tensor"),
        QStringLiteral("manual_seed"), QStringLiteral("device")};
    QStringList ops;
    auto it = call.globalMatch(source);
    while (it.hasNext()) {
        const QString name = it.next().captured(1);
        if (!ignored.contains(name) && !ops.contains(name))
            ops << name;
    }
    return ops;
}

Catalog readCatalog(db::Connection& conn) {
    Catalog c;
    db::CatalogRepository catalog(conn);
    c.providers = catalog.providers();
    c.models = catalog.models();
    c.suites = catalog.suites();
    for (const auto& suite : c.suites) {
        for (auto& task : catalog.tasks(suite.id)) {
            TaskInfo info;
            info.ops = opsOf(task);
            info.task = std::move(task);
            c.tasks.push_back(std::move(info));
        }
    }
    std::stable_sort(c.tasks.begin(), c.tasks.end(), [](const TaskInfo& a, const TaskInfo& b) {
        return std::tie(a.task.suiteId, a.task.level, a.task.key) <
               std::tie(b.task.suiteId, b.task.level, b.task.key);
    });
    {
        std::map<db::Id, std::vector<TaskValidation>> byTask;
        for (const auto& row : catalog.validationFlags()) {
            TaskValidation v;
            v.device = row.device;
            for (const auto& f :
                 QJsonDocument::fromJson(QByteArray::fromStdString(row.flagsJson)).array())
                v.flags << f.toString();
            byTask[row.taskId].push_back(std::move(v));
        }
        for (auto& t : c.tasks) {
            if (auto it = byTask.find(t.task.id); it != byTask.end())
                t.validations = it->second;
        }
    }
    for (auto& b : db::EvaluationRepository(conn).baselines())
        c.baselines[b.taskHash].push_back(std::move(b));
    for (const auto& row : db::OverviewRepository(conn).modelUsage()) {
        auto& u = c.usage[row.modelId];
        u.attempts = row.attempts;
        u.finished = row.finished;
        u.turns = row.turns;
        u.inputTokens = row.inputTokens;
        u.outputTokens = row.outputTokens;
        u.costUsd = row.costUsd;
        u.wallSeconds = row.wallSeconds;
    }
    return c;
}

} // namespace kb::gui
