"""Fixtures shared by the test modules."""
import pytest

from protocol_client import Client


@pytest.fixture
def engine():
    """A `caravan uci` subprocess that must exit cleanly at the end of the test."""
    c = Client()
    yield c
    assert c.close() == 0
