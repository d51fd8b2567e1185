"""Helpers shared by the tests and the benchmarks (benches import them as `tests.support.X`); no tests in here.

Slack, as the app meets it:
    fake_slack          FakeSlack: a local Slack on 127.0.0.1 (HTTP + WebSocket) composed of the parts below
    slack_web_api       the Web API methods, answered from an in-memory workspace
    slack_response_url  response_url POSTs (five uses each)
    slack_socket_mode   Socket Mode: envelopes out, acks back; close_socket_mode() for Bolt clients
    slack_calls         what the fake received, and waits on it (including requests still in flight)
    slack_faults        what the fake gets wrong on purpose: failures, delays, held answers
    slack_requests      what Slack sends the app: signed bodies, slash commands, events, button payloads
    slack_harness       the real app served over HTTP or Socket Mode against the fake, with drain()
    block_checks        Block Kit limits and escaping rules a built message must meet
The rest: robust (input strategies, a real `icml-bot` process, load), digest (clock and digests on the fake),
conference_fakes, sources, processes and paths.
"""
