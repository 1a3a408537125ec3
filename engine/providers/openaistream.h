#pragma once
// Joins an OpenAI-compatible chat completion stream: content and reasoning deltas, tool calls
// whose id, name and argument fragments arrive in pieces keyed by their index, usage in the
// last chunk, and the final "[DONE]".

#include "providerprotocol.h"

#include <map>

namespace kb::engine {

class OpenAiStreamAggregator : public StreamAggregator {
public:
    StreamStep feed(const SseEvent& event) override;
    bool isComplete() const override;
    ProviderError error() const override { return m_error; }
    ChatResponse result() const override;

private:
    ChatResponse m_response;
    std::map<int, ToolCall> m_calls; // by the index the server gives each call
    bool m_done = false;
    bool m_sawFinish = false;
    ProviderError m_error;
};

} // namespace kb::engine
