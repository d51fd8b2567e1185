"""icml-bot: search and follow ICML 2026 papers from Slack."""

__version__ = "0.1.0"
