#pragma once
// Joins an Anthropic Messages stream: message_start, content blocks (text, thinking, tool_use
// with input_json_delta fragments), message_delta with the stop reason and usage, message_stop.
// ping is ignored; an error event ends the stream with that error.

#include "providerprotocol.h"

#include <map>

namespace kb::engine {

class AnthropicStreamAggregator : public StreamAggregator {
public:
    StreamStep feed(const SseEvent& event) override;
    bool isComplete() const override { return m_stopped; }
    ProviderError error() const override { return m_error; }
    ChatResponse result() const override;

private:
    struct Block {
        QString type;
        QString text;
        QString signature;
        QString toolId;
        QString toolName;
        QString partialJson;
    };
    void fail(const QString& message, bool transient, const QString& type = {});

    ChatResponse m_response;
    std::map<int, Block> m_blocks; // by the index the server gives each block
    bool m_stopped = false;
    ProviderError m_error;
};

} // namespace kb::engine
