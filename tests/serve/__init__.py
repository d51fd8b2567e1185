"""Tests for bot/serve/: serving over HTTP (gunicorn workers) and Socket Mode, the serve command, index refresh and rollout."""
