"""``python -m shellpilot`` runs the CLI."""

from shellpilot.cli.app import main

main()
