#pragma once
// Generation through the engine's synchronous Provider interface (the offline demo provider):
// one call, made from the event loop after start() returns; it cannot be continued.

#include "generationsession.h"
#include "providers/provider.h"

namespace kb::engine {

class ProviderSession : public GenerationSession {
    Q_OBJECT
public:
    ProviderSession(GenerationContext context, Provider* provider, QObject* parent = nullptr);
    void start() override;

private:
    void generate();
    Provider* m_provider;
};

} // namespace kb::engine
