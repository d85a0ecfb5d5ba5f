"""shellpilot.cli"""
