"""shellpilot.skill"""
