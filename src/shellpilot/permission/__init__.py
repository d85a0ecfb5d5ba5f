"""shellpilot.permission"""
