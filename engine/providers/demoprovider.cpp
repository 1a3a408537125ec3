#include "demoprovider.h"

#include "core/error.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {
namespace {
QString pairKey(const QString& model, const QString& task)
{
    return model + QLatin1Char('/') + task;
}
} // namespace

DemoProvider::DemoProvider(const QString& dir)
    : m_dir(dir)
{
    const QString path = QDir(dir).filePath(QStringLiteral("manifest.json"));
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw Error(QStringLiteral("demo provider: cannot read %1: %2").arg(path, f.errorString()));
    QJsonParseError err{};
    const auto doc = QJsonDocument::fromJson(f.readAll(), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        throw Error(QStringLiteral("demo provider: %1 is not valid JSON: %2").arg(path, err.errorString()));
    const auto root = doc.object();
    for (const auto& v : root.value(QStringLiteral("models")).toArray()) {
        const auto o = v.toObject();
        m_models.append({o.value(QStringLiteral("id")).toString(), o.value(QStringLiteral("label")).toString()});
    }
    for (const auto& v : root.value(QStringLiteral("candidates")).toArray()) {
        const auto o = v.toObject();
        const QString key = pairKey(o.value(QStringLiteral("model")).toString(),
                                    o.value(QStringLiteral("task")).toString());
        m_files.insert(key, o.value(QStringLiteral("file")).toString());
        m_expectations.insert(key, o.value(QStringLiteral("expect")).toString());
    }
    if (m_models.isEmpty())
        throw Error(QStringLiteral("demo provider: %1 lists no models").arg(path));
}

QString DemoProvider::expectation(const QString& model, const QString& taskKey) const
{
    return m_expectations.value(pairKey(model, taskKey));
}

GenerationResult DemoProvider::generate(const GenerationRequest& request)
{
    QElapsedTimer timer;
    timer.start();
    GenerationResult out;
    out.prompt = request.prompt;
    const QString file = m_files.value(pairKey(request.model, request.taskKey));
    if (file.isEmpty()) {
        out.error = QStringLiteral("the demo provider has no stored candidate for %1 on task %2")
                        .arg(request.model, request.taskKey);
        return out;
    }
    QFile f(QDir(m_dir).filePath(file));
    if (!f.open(QIODevice::ReadOnly)) {
        out.error = QStringLiteral("demo provider: cannot read %1: %2").arg(f.fileName(), f.errorString());
        return out;
    }
    const QString code = QString::fromUtf8(f.readAll());
    out.response = QStringLiteral("Stored demo candidate (%1) for task %2.\n\n```python\n%3```\n")
                       .arg(request.model, request.taskKey, code);
    out.ok = true;
    out.stopReason = QStringLiteral("stored");
    out.latencyMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    return out;
}

} // namespace kb::engine
