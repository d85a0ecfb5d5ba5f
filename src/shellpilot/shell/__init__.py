"""shellpilot.shell"""
