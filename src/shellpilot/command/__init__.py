"""shellpilot.command"""
