"""shellpilot.server"""
