#include "retrypolicy.h"

#include <QLocale>
#include <QRandomGenerator>
#include <QTimeZone>
#include <algorithm>
#include <cmath>

namespace kb::engine {
namespace {

QByteArray headerValue(const HttpHeaders& headers, const QByteArray& name) {
    for (const auto& [k, v] : headers)
        if (k.compare(name, Qt::CaseInsensitive) == 0)
            return v.trimmed();
    return {};
}

std::optional<QDateTime> parseHttpDate(const QString& text) {
    QDateTime t = QDateTime::fromString(text, Qt::RFC2822Date);
    if (t.isValid())
        return t;
    // IMF-fixdate with "GMT", which not every Qt version reads as RFC 2822.
    t = QLocale::c().toDateTime(text, QStringLiteral("ddd, dd MMM yyyy HH:mm:ss 'GMT'"));
    if (t.isValid()) {
        t.setTimeZone(QTimeZone::utc());
        return t;
    }
    return std::nullopt;
}

} // namespace

RetryPolicy::RetryPolicy(RetrySettings settings, Clock clock, Random random)
    : m_settings(settings)
    , m_clock(clock ? std::move(clock) : Clock([] { return QDateTime::currentDateTimeUtc(); }))
    , m_random(random ? std::move(random)
                      : Random([] { return QRandomGenerator::global()->generateDouble(); })) {}

bool RetryPolicy::isRetryableStatus(int httpStatus) {
    // 408 timeout, 409 conflict (lock contention), 429 rate limit, 5xx and Anthropic's 529.
    return httpStatus == 408 || httpStatus == 409 || httpStatus == 429 || httpStatus >= 500;
}

std::optional<qint64> RetryPolicy::retryAfterMs(const HttpHeaders& headers) const {
    bool ok = false;
    const QByteArray ms = headerValue(headers, "retry-after-ms");
    if (!ms.isEmpty()) {
        const double v = ms.toDouble(&ok);
        if (ok && v >= 0)
            return static_cast<qint64>(std::ceil(v));
    }
    const QByteArray ra = headerValue(headers, "retry-after");
    if (ra.isEmpty())
        return std::nullopt;
    const double seconds = ra.toDouble(&ok);
    if (ok && seconds >= 0)
        return static_cast<qint64>(std::ceil(seconds * 1000.0));
    if (const auto date = parseHttpDate(QString::fromLatin1(ra)))
        return std::max<qint64>(0, m_clock().msecsTo(*date));
    return std::nullopt;
}

qint64 RetryPolicy::backoffMs(int attempt) const {
    const int exponent = std::clamp(attempt - 1, 0, 30);
    const double raw =
        std::min(static_cast<double>(m_settings.baseDelayMs) * std::pow(2.0, exponent),
                 static_cast<double>(m_settings.maxDelayMs));
    const double factor = 1.0 - std::clamp(m_settings.jitter, 0.0, 1.0) * m_random();
    return static_cast<qint64>(std::llround(raw * factor));
}

RetryDecision RetryPolicy::decide(int attempt, bool retryable,
                                  std::optional<qint64> retryAfter) const {
    if (!retryable || attempt >= m_settings.maxAttempts)
        return {};
    if (retryAfter) {
        // Waiting longer than the cap would stall a run; the caller hears the wait instead.
        if (*retryAfter > m_settings.maxRetryAfterMs)
            return {};
        return {true, *retryAfter};
    }
    return {true, backoffMs(attempt)};
}

} // namespace kb::engine
