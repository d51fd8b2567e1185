"""What a team keeps in Slack (saved papers, channel reading lists, digest feedback, exports), with no Slack in it."""
