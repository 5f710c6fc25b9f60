"""The small checks every front door shares: numbers as people write them, JSON objects that
name a key once, output files written only when the work is done, and a time budget that
always searches."""
import json

import pytest

from engine.outputs import OutputError, OutputFile
from engine.registry import new_game
from engine.validation import ViewError, parse_json, whole_number
from search.config import Budget
from search.ismcts import search


@pytest.mark.parametrize("text, value", [("0", 0), ("7", 7), ("18446744073709551615", 2**64 - 1),
                                         ("9" * 40, int("9" * 40))])   # at most 40 digits
def test_whole_numbers_in_plain_digits_are_taken(text, value):
    assert whole_number(text, "seed") == value


@pytest.mark.parametrize("text", ["", " 5", "5 ", "+5", "-5", "5_0", "\uff15", "\u00b2", "5.0",
                                  "1e3", "0x10", "1" * 41])
def test_every_other_spelling_of_a_number_is_refused(text):
    with pytest.raises(ValueError, match="^seed is"):
        whole_number(text, "seed")


def test_a_json_object_naming_a_key_twice_is_refused():
    assert parse_json('{"a": 1, "b": {"a": 2}}') == {"a": 1, "b": {"a": 2}}
    for text in ('{"a": 1, "a": 2}', '{"b": [{"c": 1, "c": 1}]}'):
        with pytest.raises(ViewError, match="given twice in one object"):
            parse_json(text)


def test_an_output_file_is_replaced_whole_only_when_written(tmp_path):
    path = tmp_path / "record.json"
    path.write_text("old contents, longer than the new\n")
    with OutputFile(str(path), "record"):
        assert path.read_text() == "old contents, longer than the new\n"   # not emptied yet
    assert path.read_text() == "old contents, longer than the new\n"       # nor by closing
    with OutputFile(str(path), "record") as f:
        f.write('{"game": "khiva"}\n')
    assert json.loads(path.read_text()) == {"game": "khiva"}


def test_an_output_file_never_written_is_not_left_behind(tmp_path):
    path = tmp_path / "new.json"
    OutputFile(str(path), "record").close()
    assert not path.exists()


def test_an_output_file_that_cannot_be_written_says_so(tmp_path):
    with pytest.raises(ValueError, match="^cannot write the record file"):
        OutputFile(str(tmp_path), "record")                  # a directory
    with pytest.raises(ValueError, match="needs a name"):
        OutputFile("", "record")
    full = "/dev/full"
    try:
        f = OutputFile(full, "record")
    except ValueError:
        pytest.skip("no /dev/full here")
    with f, pytest.raises(OutputError, match="No space left"):
        f.write("{}\n")


def test_a_time_budget_shorter_than_one_chunk_still_searches():
    state = new_game("khiva", 3, 7)
    result = search(state, Budget(seconds=1e-9), seed=1)
    assert result.iterations > 0 and result.stats


def test_a_list_of_thousands_of_wrong_items_is_refused_without_judging_each(monkeypatch):
    """32,000 empty objects as a view's player_state (96 kB, under the protocol's line limit)
    took 8 s to refuse: every item was judged before the first error was named. Only the
    first MOST_SCHEMA_ERRORS errors are weighed now, and the same field is named."""
    import engine.validation as validation
    from engine.registry import from_view

    drawn = []
    real_validator = validation._validator

    def counting_validator(name):
        real = real_validator(name)

        class Counting:
            def iter_errors(self, value):
                for error in real.iter_errors(value):
                    drawn.append(error)
                    yield error
        return Counting()

    view = new_game("khiva", 3, 1).to_json(view=0)
    view["player_state"] = [{}] * 32_000
    monkeypatch.setattr(validation, "_validator", counting_validator)
    with pytest.raises(ViewError, match="player_state"):
        from_view(view)
    assert 0 < len(drawn) <= validation.MOST_SCHEMA_ERRORS
