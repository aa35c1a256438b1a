"""The door for other agents (README "planner for other agents"): MCP and staged proposals."""
