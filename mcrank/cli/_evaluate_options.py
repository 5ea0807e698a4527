"""``mcrank evaluate``'s flags of :class:`~mcrank.evaluate.options.EvaluateOptions`, generated
from its fields: declared (:func:`add_arguments`), parsed and checked once into the options
object (:func:`options_of`), and refused in a mode of the command that does not read them
(:func:`refuse_unread`): the mode of ``--scores``, of ``--folds-column`` or of a utility per
item; the matrices' mode reads them all.
"""

from __future__ import annotations

from mcrank.cli._common import UsageError, flagged_by

#: How a mode refuses a flag it does not read: it would change nothing.
_REFUSALS = {
    "scores": "{flag} is not an option of --scores",
    "folds": "{flag} is not an option of --folds-column",
    "per-item": "{flag} has no per-item form: give a utility matrix, or leave {flag} out",
}
#: A refusal of its own, where the reason is not the mode's.
_OWN_REFUSALS = {
    ("folds", "test_uncertainty"): "--test-uncertainty is not an option of --folds-column: the folds' spread is the uncertainty"
}


def _fields():
    from mcrank.evaluate.options import option_fields

    return option_fields()


def _dest(spec) -> str:
    """The attribute of the parsed arguments that holds the field's flag (``--seed``: ``seed``)."""
    return spec.metadata["flag"][2:].replace("-", "_")


def add_arguments(add) -> None:
    """Add the options' flags with ``add`` (a parser's or a group's ``add_argument``), in the
    order of the fields."""
    for spec in _fields():
        meta = spec.metadata
        kwargs = {"help": meta["help"]}
        for key, argparse_key in (("metavar", "metavar"), ("choices", "choices"), ("action", "action"), ("nargs", "nargs"),
                                  ("cli_type", "type")):  # fmt: skip
            if meta[key] is not None:
                kwargs[argparse_key] = meta[key]
        add(meta["flag"], **kwargs)


def given(args) -> dict:
    """The options' flags given on the command line, ``{field: value as parsed by argparse}``."""
    values = {}
    for spec in _fields():
        value = getattr(args, _dest(spec), None)
        if value is not None and value is not False:
            values[spec.name] = value
    return values


def flags() -> dict[str, str]:
    """Each field's flag, by the field's name: a library message names the field, ours the flag."""
    return {spec.name: spec.metadata["flag"] for spec in _fields()}


def options_of(args, **values):
    """The options the command line gives, parsed and checked once, with ``values`` (a field
    that has no flag, such as ``progress``): an :class:`~mcrank.evaluate.options.EvaluateOptions`,
    or a UsageError naming the flag."""
    from mcrank.evaluate.options import EvaluateOptions

    specs = {spec.name: spec for spec in _fields()}
    for name, value in given(args).items():
        parse = specs[name].metadata["parse"]
        try:
            values[name] = value if parse is None else parse(value, specs[name].metadata["flag"])
        except ValueError as error:
            raise UsageError(str(error)) from None
    return flagged_by({**flags(), "seed": "--seed"})(EvaluateOptions, **values)


def refuse_unread(args, mode: str) -> None:
    """A UsageError for the first option given that ``mode`` does not read."""
    for spec in _fields():
        if mode not in spec.metadata["modes"] and spec.name in given(args):
            flag = spec.metadata["flag"]
            raise UsageError(_OWN_REFUSALS.get((mode, spec.name)) or _REFUSALS[mode].format(flag=flag))
