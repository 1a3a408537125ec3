#include "demoprovider.h"

#include "core/error.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {
namespace {
QString pairKey(const QString& model, const QString& task) {
    return model + QLatin1Char('/') + task;
}
} // namespace

DemoProvider::Manifest DemoProvider::readManifest(const QString& dir, QList<DemoModel>* models) {
    const QString path = QDir(dir).filePath(QStringLiteral("manifest.json"));
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw Error(QStringLiteral("demo provider: cannot read %1: %2").arg(path, f.errorString()));
    QJsonParseError err{};
    const auto doc = QJsonDocument::fromJson(f.readAll(), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        throw Error(
            QStringLiteral("demo provider: %1 is not valid JSON: %2").arg(path, err.errorString()));
    const auto root = doc.object();
    if (models) {
        for (const auto& v : root.value(QStringLiteral("models")).toArray()) {
            const auto o = v.toObject();
            models->append({o.value(QStringLiteral("id")).toString(),
                            o.value(QStringLiteral("label")).toString()});
        }
    }
    Manifest m;
    m.dir = dir;
    for (const auto& v : root.value(QStringLiteral("candidates")).toArray()) {
        const auto o = v.toObject();
        const QString key = pairKey(o.value(QStringLiteral("model")).toString(),
                                    o.value(QStringLiteral("task")).toString());
        m.files.insert(key, o.value(QStringLiteral("file")).toString());
        m.expectations.insert(key, o.value(QStringLiteral("expect")).toString());
    }
    return m;
}

DemoProvider::DemoProvider(const QString& dir) {
    m_cpu = readManifest(dir, &m_models);
    if (m_models.isEmpty())
        throw Error(QStringLiteral("demo provider: %1/manifest.json lists no models").arg(dir));
    const QString cudaDir = QDir(dir).filePath(QStringLiteral("cuda"));
    if (QFileInfo::exists(QDir(cudaDir).filePath(QStringLiteral("manifest.json"))))
        m_cuda = readManifest(cudaDir, nullptr);
}

const DemoProvider::Manifest* DemoProvider::manifestFor(const QString& device) const {
    if (device == QLatin1String("cuda"))
        return m_cuda ? &*m_cuda : nullptr;
    return &m_cpu;
}

QString DemoProvider::expectation(const QString& model, const QString& taskKey,
                                  const QString& device) const {
    const Manifest* m = manifestFor(device);
    return m ? m->expectations.value(pairKey(model, taskKey)) : QString();
}

GenerationResult DemoProvider::generate(const GenerationRequest& request) {
    QElapsedTimer timer;
    timer.start();
    GenerationResult out;
    out.prompt = request.prompt;
    const Manifest* m = manifestFor(request.device);
    if (!m) {
        out.error = QStringLiteral("the demo provider has no stored candidates for device '%1'")
                        .arg(request.device);
        return out;
    }
    const QString file = m->files.value(pairKey(request.model, request.taskKey));
    if (file.isEmpty()) {
        out.error = QStringLiteral("the demo provider has no stored %1 candidate for %2 on task %3")
                        .arg(request.device, request.model, request.taskKey);
        return out;
    }
    QFile f(QDir(m->dir).filePath(file));
    if (!f.open(QIODevice::ReadOnly)) {
        out.error =
            QStringLiteral("demo provider: cannot read %1: %2").arg(f.fileName(), f.errorString());
        return out;
    }
    const QString code = QString::fromUtf8(f.readAll());
    out.response =
        QStringLiteral("Stored demo candidate (%1, %2) for task %3.\n\n```python\n%4```\n")
            .arg(request.model, request.device, request.taskKey, code);
    out.ok = true;
    out.stopReason = QStringLiteral("stored");
    out.latencyMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    return out;
}

} // namespace kb::engine
