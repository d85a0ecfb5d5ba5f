"""shellpilot.agent"""
