"""shellpilot.mcp"""
