"""Tests for bot/state/."""
