#pragma once
// The offline demo provider. It is not a model: it serves candidate programs stored with the
// program (resources/demo) as pseudo-models, so the whole pipeline runs with no network and
// no API key. Its results show the machinery, not any model's ability. The candidates for CPU
// runs (C++ extensions) are in <dir>, those for CUDA runs in <dir>/cuda.

#include "provider.h"

#include <QHash>
#include <QList>
#include <optional>

namespace kb::engine {

struct DemoModel {
    QString id;
    QString label;
};

class DemoProvider : public Provider {
public:
    // Reads <dir>/manifest.json (and <dir>/cuda/manifest.json when present); throws Error when
    // the first is missing or either is malformed.
    explicit DemoProvider(const QString& dir);
    QString kind() const override { return QStringLiteral("demo"); }
    GenerationResult generate(const GenerationRequest& request) override;

    const QList<DemoModel>& models() const { return m_models; }
    // What the stored candidate is known to do ("correct_faster", "build_error", ...).
    QString expectation(const QString& model, const QString& taskKey,
                        const QString& device = QStringLiteral("cpu")) const;

private:
    struct Manifest {
        QString dir;
        QHash<QString, QString> files;        // "model/task" -> file
        QHash<QString, QString> expectations; // "model/task" -> expect
    };
    static Manifest readManifest(const QString& dir, QList<DemoModel>* models);
    const Manifest* manifestFor(const QString& device) const;

    QList<DemoModel> m_models;
    Manifest m_cpu;
    std::optional<Manifest> m_cuda;
};

} // namespace kb::engine
