#include "sessionfactory.h"

#include "agentsession.h"
#include "chatsession.h"
#include "providersession.h"

namespace kb::engine {

GenerationSession* makeGenerationSession(const GenerationContext& context, Provider* provider,
                                         ChatClient* client, QObject* parent) {
    if (provider)
        return new ProviderSession(context, provider, parent);
    if (context.mode == kModeAgent)
        return new AgentSession(context, client, parent);
    return new ChatSession(context, client, parent);
}

} // namespace kb::engine
