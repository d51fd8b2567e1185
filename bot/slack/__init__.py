"""The Slack side of icml-bot: Bolt wiring, the /icml command, mentions, buttons and Block Kit builders."""
