"""shellpilot.provider"""
