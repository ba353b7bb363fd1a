from __future__ import annotations

import inspect

import langmemcore
from langmemcore import _errors

EXPECTED_BUILTIN = {
    "InvalidNamespaceError": ValueError,
    "InvalidInputError": ValueError,
    "ObservationConflictError": ValueError,
    "ConfigurationError": ValueError,
    "NotFoundError": KeyError,
    "MigrationRequiredError": RuntimeError,
    "DatabaseUnavailableError": ConnectionError,
    "LLMOutputError": ValueError,
    "LLMUnavailableError": ConnectionError,
    "LLMSkippedError": ConnectionError,
}


def test_every_error_derives_from_the_root_and_its_builtin() -> None:
    classes = {
        name: obj
        for name, obj in inspect.getmembers(_errors, inspect.isclass)
        if issubclass(obj, Exception) and obj.__module__ == _errors.__name__
    }
    assert set(classes) == set(EXPECTED_BUILTIN) | {"LangMemCoreError"}
    for name, builtin in EXPECTED_BUILTIN.items():
        assert issubclass(classes[name], _errors.LangMemCoreError), name
        assert issubclass(classes[name], builtin), name
    assert issubclass(classes["LLMSkippedError"], classes["LLMUnavailableError"])


def test_errors_are_exported_at_top_level() -> None:
    for name in [*EXPECTED_BUILTIN, "LangMemCoreError"]:
        assert getattr(langmemcore, name) is getattr(_errors, name)


def test_not_found_message_is_not_quoted_like_a_keyerror() -> None:
    assert str(_errors.NotFoundError("note 7 does not exist")) == "note 7 does not exist"
