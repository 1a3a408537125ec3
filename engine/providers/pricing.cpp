#include "pricing.h"

#include <algorithm>

namespace kb::engine {

double ModelPrice::cost(const TokenUsage& usage) const {
    const qint64 uncached =
        std::max<qint64>(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
    const auto d = [](qint64 n) { return static_cast<double>(n); };
    return (d(uncached) * inputPerMTok + d(usage.outputTokens) * outputPerMTok +
            d(usage.cacheReadTokens) * cacheReadPerMTok.value_or(inputPerMTok) +
            d(usage.cacheWriteTokens) * cacheWritePerMTok.value_or(inputPerMTok)) /
           1e6;
}

std::optional<ModelPrice> PriceTable::find(const QString& model) const {
    auto it = m_prices.constFind(model);
    if (it == m_prices.constEnd())
        it = m_prices.constFind(QStringLiteral("*"));
    if (it == m_prices.constEnd())
        return std::nullopt;
    return *it;
}

std::optional<double> PriceTable::cost(const QString& model, const TokenUsage& usage) const {
    const auto p = find(model);
    if (!p)
        return std::nullopt;
    return p->cost(usage);
}

std::optional<PriceTable> PriceTable::fromJson(const QJsonObject& object, QString* error) {
    PriceTable t;
    for (auto it = object.begin(); it != object.end(); ++it) {
        const auto o = it.value().toObject();
        const auto in = o.value(QStringLiteral("input"));
        const auto out = o.value(QStringLiteral("output"));
        if (!in.isDouble() || !out.isDouble() || in.toDouble() < 0 || out.toDouble() < 0) {
            if (error)
                *error = QStringLiteral("the price of %1 needs non-negative \"input\" and "
                                        "\"output\" numbers (USD per million tokens)")
                             .arg(it.key());
            return std::nullopt;
        }
        ModelPrice p{in.toDouble(), out.toDouble(), {}, {}};
        if (o.value(QStringLiteral("cache_read")).isDouble())
            p.cacheReadPerMTok = o.value(QStringLiteral("cache_read")).toDouble();
        if (o.value(QStringLiteral("cache_write")).isDouble())
            p.cacheWritePerMTok = o.value(QStringLiteral("cache_write")).toDouble();
        t.set(it.key(), p);
    }
    return t;
}

QJsonObject PriceTable::toJson() const {
    QJsonObject out;
    for (auto it = m_prices.begin(); it != m_prices.end(); ++it) {
        QJsonObject o{{QStringLiteral("input"), it->inputPerMTok},
                      {QStringLiteral("output"), it->outputPerMTok}};
        if (it->cacheReadPerMTok)
            o.insert(QStringLiteral("cache_read"), *it->cacheReadPerMTok);
        if (it->cacheWritePerMTok)
            o.insert(QStringLiteral("cache_write"), *it->cacheWritePerMTok);
        out.insert(it.key(), o);
    }
    return out;
}

} // namespace kb::engine
