"""shellpilot.session"""
