#pragma once
// The tools an agent gets, as definitions sent with every request (each protocol writes them
// in its own format), and the instructions that explain the workspace and the stop rule.

#include "generationsession.h"
#include "providers/chattypes.h"

namespace kb::engine {

QList<ToolDefinition> agentToolDefinitions();

// The system message: the agent's situation and rules, followed by the skill.
QString agentSystemPrompt(const GenerationContext& context);
// The first user message: the task.
QString agentTaskPrompt(const GenerationContext& context);

} // namespace kb::engine
