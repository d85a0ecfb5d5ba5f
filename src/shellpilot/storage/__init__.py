"""shellpilot.storage"""
