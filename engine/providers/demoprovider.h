#pragma once
// The offline demo provider. It is not a model: it serves candidate programs stored with the
// program (resources/demo) as pseudo-models, so the whole pipeline runs with no network and
// no API key. Its results show the machinery, not any model's ability.

#include "provider.h"

#include <QHash>
#include <QList>

namespace kb::engine {

struct DemoModel {
    QString id;
    QString label;
};

class DemoProvider : public Provider {
public:
    // Reads <dir>/manifest.json; throws Error when it is missing or malformed.
    explicit DemoProvider(const QString& dir);
    QString kind() const override { return QStringLiteral("demo"); }
    GenerationResult generate(const GenerationRequest& request) override;

    const QList<DemoModel>& models() const { return m_models; }
    // What the stored candidate is known to do ("correct_faster", "build_error", ...).
    QString expectation(const QString& model, const QString& taskKey) const;

private:
    QString m_dir;
    QList<DemoModel> m_models;
    QHash<QString, QString> m_files;        // "model/task" -> file
    QHash<QString, QString> m_expectations; // "model/task" -> expect
};

} // namespace kb::engine
