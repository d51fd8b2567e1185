"""Tests for bot/serve/: HTTP (gunicorn) and Socket Mode workers, the serve command, index refresh and rollout."""
