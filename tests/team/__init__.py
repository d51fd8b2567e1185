"""Tests for bot/team/."""
