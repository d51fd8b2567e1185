"""Tests for bot/search/."""
