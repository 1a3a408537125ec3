#include "modelreference.h"

#include "core/error.h"

#include <QStringList>

namespace kb::engine {

QString qualifiedModelName(const db::ModelRow& model) {
    return QString::fromStdString(model.providerName) + QLatin1Char('/') +
           QString::fromStdString(model.name);
}

db::ModelRow resolveModelReference(const std::vector<db::ModelRow>& models,
                                   const QString& reference) {
    const std::string ref = reference.trimmed().toStdString();
    if (ref.empty())
        throw Error(QStringLiteral("an empty model name"));
    // Qualified: the prefix up to any '/' names a provider, the rest its model.
    for (size_t slash = ref.find('/'); slash != std::string::npos;
         slash = ref.find('/', slash + 1)) {
        const std::string provider = ref.substr(0, slash);
        const std::string name = ref.substr(slash + 1);
        for (const auto& m : models)
            if (m.providerName == provider && m.name == name)
                return m;
    }
    std::vector<const db::ModelRow*> bare;
    for (const auto& m : models)
        if (m.name == ref)
            bare.push_back(&m);
    if (bare.size() == 1)
        return *bare.front();
    QStringList choices;
    if (bare.size() > 1) {
        for (const auto* m : bare)
            choices << qualifiedModelName(*m);
        throw Error(
            QStringLiteral("model '%1' is offered by %2 providers: %3; name one as provider/model")
                .arg(reference)
                .arg(bare.size())
                .arg(choices.join(QStringLiteral(", "))));
    }
    for (const auto& m : models)
        choices << qualifiedModelName(m);
    throw Error(QStringLiteral("no model named '%1' in the database (known: %2)")
                    .arg(reference, choices.isEmpty() ? QStringLiteral("none")
                                                      : choices.join(QStringLiteral(", "))));
}

db::ModelRow resolveModelReference(db::CatalogRepository& catalog, const QString& reference) {
    return resolveModelReference(catalog.models(), reference);
}

} // namespace kb::engine
