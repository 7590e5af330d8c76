"""Gunicorn settings for Parsnip: `gunicorn -c config/gunicorn.py config.wsgi`.

`make run` serves with exactly this; so does a deployment (behind a proxy that terminates
TLS). Threaded workers: a learner waiting for a run holds a thread that sleeps in
select() (see tutor/run_notices.py) and holds no database connection, so threads are
cheap and a class of 100 waiting at once needs no more processes.
"""

import multiprocessing
import os

bind = os.environ.get("BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count()))
worker_class = "gthread"
threads = int(os.environ.get("WEB_THREADS", "64"))
backlog = 2048
# Long enough for a request that waits for its run (at most a few seconds), short enough
# that a stuck thread is replaced.
timeout = 60
graceful_timeout = 30
keepalive = 5
accesslog = os.environ.get("ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()
proc_name = "parsnip-web"
# Several Parsnips (or a benchmark beside `make run`) may run on one machine: no shared
# control socket in $HOME.
control_socket_disable = True
