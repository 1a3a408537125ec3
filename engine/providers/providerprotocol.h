#pragma once
// What a provider's wire protocol must provide: the HTTP request for a chat turn or a model
// listing, and the decoding of the answers. Protocols are pure: no sockets, no timers. The
// transport sends what they build; the aggregators turn a stream back into one ChatResponse.

#include "chattypes.h"
#include "ssedecoder.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <memory>

namespace kb::engine {

using HttpHeaders = QList<QPair<QByteArray, QByteArray>>;

struct HttpRequestSpec {
    QByteArray method = "POST";
    QString path;        // relative to the provider's base URL, e.g. "chat/completions"
    HttpHeaders headers; // may hold secrets: never log or record them unredacted
    QByteArray body;
    bool streamBody = false; // the reply is a stream, passed on as it arrives
};

// What one stream event changed, for showing the reply as it is written.
struct StreamStep {
    QString text;
    QString reasoning;
};

// Joins the events of one streamed response into a ChatResponse.
class StreamAggregator {
public:
    virtual ~StreamAggregator() = default;
    virtual StreamStep feed(const SseEvent& event) = 0;
    // The provider said the response is complete.
    virtual bool isComplete() const = 0;
    // A fatal problem (an error event, undecodable data); empty while all is well.
    virtual ProviderError error() const = 0;
    virtual ChatResponse result() const = 0;
};

class ProviderProtocol {
public:
    virtual ~ProviderProtocol() = default;
    virtual QString name() const = 0;
    virtual HttpRequestSpec chatRequest(const ChatRequest& request,
                                        const QString& apiKey) const = 0;
    virtual HttpRequestSpec modelsRequest(const QString& apiKey) const = 0;
    // Decodes a complete (non-streamed) body; false with *error set when it cannot.
    virtual bool decodeChat(const QByteArray& body, ChatResponse* out,
                            ProviderError* error) const = 0;
    virtual std::unique_ptr<StreamAggregator> newStreamAggregator() const = 0;
    virtual bool decodeModels(const QByteArray& body, QList<ModelInfo>* out,
                              QString* error) const = 0;
};

// The provider's own message and type in an error body ({"error":{"message","type"}},
// {"message"}, {"detail"}, ...); empty when the body says nothing readable.
struct ErrorBody {
    QString message;
    QString type;
};
ErrorBody parseErrorBody(const QByteArray& body);

// A JSON POST of a chat request to `path`, streamed (text/event-stream) when the request asks.
HttpRequestSpec jsonChatRequest(const QString& path, HttpHeaders headers, bool stream,
                                const QJsonObject& body);
// A GET of the model list.
HttpRequestSpec modelListRequest(const QString& path, HttpHeaders headers);
// The reply body as a JSON object; false (with a readable error) when it is not one.
bool parseReplyObject(const QByteArray& body, QJsonObject* out, QString* error);

} // namespace kb::engine
