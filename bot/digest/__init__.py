"""Daily digests: what a channel gets on a date (select), posting it exactly once (channels), and when (scheduler).

Knows nothing of Slack: a digest goes out through a `Poster` (bot/slack/digest_post.py in production, a fake in
tests), and time comes in as arguments; the scheduler is the only code that reads the clock.
"""
