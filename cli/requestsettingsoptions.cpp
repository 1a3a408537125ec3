#include "requestsettingsoptions.h"

#include "providers/requestoptions.h"

#include <cmath>

namespace kb::cli {
namespace {
QString s(const char* text) {
    return QString::fromLatin1(text);
}

bool number(const QCommandLineParser& p, const char* opt, double* out, QString* error) {
    bool ok = false;
    *out = p.value(s(opt)).toDouble(&ok);
    if (!ok || !std::isfinite(*out)) {
        *error = QStringLiteral("--%1 must be a number").arg(s(opt));
        return false;
    }
    return true;
}
} // namespace

void addRequestSettingsOptions(QCommandLineParser& p, bool forModel) {
    p.addOption({s("token-field"),
                 s("Name of the output-token limit: max_tokens or max_completion_tokens (OpenAI "
                   "reasoning models: o-series, GPT-5)."),
                 s("FIELD")});
    p.addOption({s("extra-body"),
                 s("JSON object merged into every request body, e.g. {\"top_k\":20}."), s("JSON")});
    p.addOption(
        {s("stream"), s("Streaming: on or off (default: the run's setting, on)."), s("on|off")});
    p.addOption({s("temperature"),
                 s("Sampling temperature (0-2 OpenAI-compatible, 0-1 Anthropic)."), s("T")});
    p.addOption({s("top-p"), s("Nucleus sampling top_p (0-1)."), s("P")});
    p.addOption({s("seed"), s("Sampling seed (integer; where the provider takes one)."), s("N")});
    p.addOption({s("reasoning-effort"),
                 s("OpenAI reasoning_effort: none, minimal, low, medium, high or xhigh."),
                 s("LEVEL")});
    p.addOption({s("thinking-budget"),
                 s("Anthropic extended thinking with this many budget tokens (>= 1024; the run's "
                   "--max-tokens must be larger)."),
                 s("N")});
    if (forModel)
        return;
    p.addOption({s("extra-headers"),
                 s("JSON object of extra HTTP headers, e.g. {\"anthropic-beta\":\"...\"}; keys go "
                   "to the key store, never here."),
                 s("JSON")});
    p.addOption(
        {s("retries"), s("Retries of a failed request (429, 5xx, timeouts; default 3)."), s("N")});
}

bool applyRequestSettingsOptions(const QCommandLineParser& p, const QString& kind, bool forModel,
                                 QJsonObject& out, QString* error) {
    QJsonObject settings = out;
    if (p.isSet(s("token-field")))
        settings.insert(s("token_field"), p.value(s("token-field")));
    QJsonObject body = settings.value(s("extra_body")).toObject();
    if (p.isSet(s("extra-body"))) {
        const auto parsed =
            engine::parseJsonObjectArgument(p.value(s("extra-body")), s("--extra-body"), error);
        if (!parsed)
            return false;
        for (auto it = parsed->begin(); it != parsed->end(); ++it)
            body.insert(it.key(), it.value());
    }
    if (p.isSet(s("reasoning-effort")))
        body.insert(s("reasoning_effort"), p.value(s("reasoning-effort")));
    if (p.isSet(s("thinking-budget"))) {
        double v = 0;
        if (!number(p, "thinking-budget", &v, error))
            return false;
        body.insert(s("thinking"),
                    QJsonObject{{s("type"), s("enabled")}, {s("budget_tokens"), std::floor(v)}});
    }
    if (!body.isEmpty())
        settings.insert(s("extra_body"), body);
    if (p.isSet(s("stream"))) {
        const QString v = p.value(s("stream"));
        if (v != QLatin1String("on") && v != QLatin1String("off")) {
            *error = QStringLiteral("--stream must be on or off");
            return false;
        }
        settings.insert(s("stream"), v == QLatin1String("on"));
    }
    for (const char* opt : {"temperature", "top-p", "seed"}) {
        if (!p.isSet(s(opt)))
            continue;
        double v = 0;
        if (!number(p, opt, &v, error))
            return false;
        settings.insert(s(opt).replace(QLatin1Char('-'), QLatin1Char('_')), v);
    }
    if (!forModel) {
        if (p.isSet(s("extra-headers"))) {
            const auto parsed = engine::parseJsonObjectArgument(p.value(s("extra-headers")),
                                                                s("--extra-headers"), error);
            if (!parsed)
                return false;
            settings.insert(s("extra_headers"), *parsed);
        }
        if (p.isSet(s("retries"))) {
            double v = 0;
            if (!number(p, "retries", &v, error))
                return false;
            if (v < 0 || v > 19 || v != std::floor(v)) {
                *error = QStringLiteral("--retries must be a whole number from 0 to 19");
                return false;
            }
            settings.insert(s("max_attempts"), v + 1);
        }
    }
    if (const QString bad = engine::checkRequestSettings(kind, settings); !bad.isEmpty()) {
        *error = bad;
        return false;
    }
    out = settings;
    return true;
}

} // namespace kb::cli
