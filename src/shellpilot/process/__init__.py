"""shellpilot.process: the process runner.

Owns: spawning a shell in its own process group, the exit watch, bounded output capture
and spill files, text cleanup, shell detection and spill retention. Must not touch:
scanning, permissions or sessions.
"""
