"""app.main:app with Starlette's GZipMiddleware added, as the one-line change in app/main.py would
do (`app.add_middleware(GZipMiddleware, minimum_size=1000)`): bench/page_weight.py --gzip."""

from starlette.middleware.gzip import GZipMiddleware

from app.main import app

app.add_middleware(GZipMiddleware, minimum_size=1000)
