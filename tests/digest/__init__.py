"""Tests for bot/digest/."""
