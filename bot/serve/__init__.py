"""Running the app built by bot.wiring: Socket Mode or HTTP (gunicorn workers behind a signature gate), one process
or several, stopped gently. Modules by job: tokens (checks), gate (WSGI), socket_mode, http_workers (gunicorn),
socket_workers (supervision), runtime (one process's parts and stop), refresh (ICML_BOT_REFRESH), run (`serve`)."""
