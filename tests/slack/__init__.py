"""Tests for bot/slack/."""
