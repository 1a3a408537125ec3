#pragma once
// What a call costs: prices per model, in US dollars per million tokens.

#include "chattypes.h"

#include <QHash>
#include <QJsonObject>
#include <optional>

namespace kb::engine {

struct ModelPrice {
    double inputPerMTok = 0;
    double outputPerMTok = 0;
    std::optional<double> cacheReadPerMTok;  // unset: charged as input
    std::optional<double> cacheWritePerMTok; // unset: charged as input

    double cost(const TokenUsage& usage) const;
};

class PriceTable {
public:
    void set(const QString& model, const ModelPrice& price) { m_prices.insert(model, price); }
    // The exact model, else the entry "*" (e.g. free local models), else nothing.
    std::optional<ModelPrice> find(const QString& model) const;
    std::optional<double> cost(const QString& model, const TokenUsage& usage) const;
    bool isEmpty() const { return m_prices.isEmpty(); }

    // {"model": {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75}, ...}
    static std::optional<PriceTable> fromJson(const QJsonObject& object, QString* error);
    QJsonObject toJson() const;

private:
    QHash<QString, ModelPrice> m_prices;
};

} // namespace kb::engine
