"""Tests for bot/papers/."""
