"""The paper index as its callers name it: `index.connect`, `index.load`, `index.get_paper`, ... Each job lives in a
module of its own (connection, schema, loading, reconcile, lookup; what search reads beside the papers is rebuilt by
bot.papers.search_tables); this module only gathers their public names."""

from __future__ import annotations

from bot.papers.connection import AnyReader as AnyReader
from bot.papers.connection import connect as connect
from bot.papers.connection import snapshot as snapshot
from bot.papers.loading import ID_ALPHABET as ID_ALPHABET
from bot.papers.loading import NOT_COLUMNS as NOT_COLUMNS
from bot.papers.loading import Report as Report
from bot.papers.loading import combine as combine
from bot.papers.loading import load as load
from bot.papers.loading import make_id as make_id
from bot.papers.loading import removed_if_failed as removed_if_failed
from bot.papers.loading import sources_of as sources_of
from bot.papers.loading import to_row as to_row
from bot.papers.lookup import JSON_COLUMNS as JSON_COLUMNS
from bot.papers.lookup import decode as decode
from bot.papers.lookup import get_paper as get_paper
from bot.papers.lookup import stats as stats
from bot.papers.lookup import venue_counts as venue_counts

# Raised by connect: callers catch it as index's
from bot.papers.reading import IndexUnavailable as IndexUnavailable
from bot.papers.reconcile import STOPWORDS as STOPWORDS
from bot.papers.reconcile import TWIN_SIMILARITY as TWIN_SIMILARITY
from bot.papers.reconcile import TWIN_SIMILARITY_WITH_NAME as TWIN_SIMILARITY_WITH_NAME
from bot.papers.reconcile import find_twin as find_twin
from bot.papers.reconcile import merge_rows as merge_rows
from bot.papers.reconcile import reconcile as reconcile
from bot.papers.reconcile import same_venue as same_venue
from bot.papers.schema import FTS_COLUMNS as FTS_COLUMNS
from bot.papers.schema import LATER_COLUMNS as LATER_COLUMNS
from bot.papers.schema import PLAIN_ABSTRACTS as PLAIN_ABSTRACTS
from bot.papers.schema import SCHEMA_VERSION as SCHEMA_VERSION
from bot.papers.schema import STORED_MARKUP as STORED_MARKUP
from bot.papers.schema import add_later_columns as add_later_columns
from bot.papers.schema import ensure_schema as ensure_schema
from bot.papers.schema import stores_markup as stores_markup
from bot.papers.schema import unescape_json_columns as unescape_json_columns
