"""Tests for bot/text/."""
