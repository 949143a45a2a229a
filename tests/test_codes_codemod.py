"""`scripts/codes_codemod.py`: literals become registry names, prose stays, twice is once."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tests._codemod import load_codemod

CODEMOD = load_codemod()
REGISTRY = frozenset({"NIKA-DAG-004", "NIKA-BUILTIN-READ-001", "NIKA-SEC-005"})

BEFORE = textwrap.dedent('''\
    """Refusals: a cycle is `NIKA-DAG-004` (prose keeps its code)."""

    from __future__ import annotations

    import re

    from nika.errors import NikaError

    TABLE = {"cycle": "NIKA-DAG-004"}  # "NIKA-DAG-004" in a comment stays


    def refuse(code: str = "NIKA-DAG-004") -> NikaError:
        """Raise "NIKA-DAG-004"."""
        return NikaError(code, f"NIKA-DAG-004 is the code; {re.escape('x')}")


    def is_cycle(err: NikaError) -> bool:
        return err.code in ("NIKA-DAG-004", "NIKA-" "SEC-005")
    ''')

AFTER = textwrap.dedent('''\
    """Refusals: a cycle is `NIKA-DAG-004` (prose keeps its code)."""

    from __future__ import annotations

    import re

    from nika.errors import NikaError
    from nika import codes

    TABLE = {"cycle": codes.DAG_004}  # "NIKA-DAG-004" in a comment stays


    def refuse(code: str = codes.DAG_004) -> NikaError:
        """Raise "NIKA-DAG-004"."""
        return NikaError(code, f"NIKA-DAG-004 is the code; {re.escape('x')}")


    def is_cycle(err: NikaError) -> bool:
        return err.code in (codes.DAG_004, codes.SEC_005)
    ''')


def test_literals_become_names_and_prose_stays() -> None:
    # The import lands in the first block; `run` has ruff sort it into place.
    assert CODEMOD.rewrite(BEFORE, REGISTRY) == AFTER


def test_a_second_pass_changes_nothing() -> None:
    assert CODEMOD.rewrite(AFTER, REGISTRY) == AFTER
    assert CODEMOD.literal_sites(AFTER) == []


def test_a_module_without_imports_gets_one_after_its_docstring() -> None:
    source = '"""Doc."""\nX = ("NIKA-SEC-005",)\n'
    assert CODEMOD.rewrite(source, REGISTRY) == (
        '"""Doc."""\nfrom nika import codes\nX = (codes.SEC_005,)\n')


def test_a_code_without_a_row_is_refused_never_invented() -> None:
    with pytest.raises(CODEMOD.Refusal, match="NIKA-DAG-999 has no row"):
        CODEMOD.rewrite('X = "NIKA-DAG-999"\n', REGISTRY, "m.py")


def test_a_local_codes_elsewhere_does_not_stop_the_module() -> None:
    source = textwrap.dedent('''\
        X = "NIKA-DAG-004"


        class Declaration:
            codes: dict[str, str] = {}

            def judge(self, codes: int) -> str:
                return X if codes else "NIKA-SEC-005"
        ''')
    with pytest.raises(CODEMOD.Refusal, match=r"m.py:8: a local `codes` hides"):
        CODEMOD.rewrite(source, REGISTRY, "m.py")
    fine = source.replace('"NIKA-SEC-005"', "X")
    in_body = fine.replace("    codes: dict", "    code = \"NIKA-SEC-005\"\n    codes: dict")
    with pytest.raises(CODEMOD.Refusal, match=r"m.py:5: a local `codes` hides"):
        CODEMOD.rewrite(in_body, REGISTRY, "m.py")
    assert CODEMOD.rewrite(fine, REGISTRY) == "from nika import codes\n" + fine.replace(
        '"NIKA-DAG-004"', "codes.DAG_004")


def test_a_module_binding_codes_itself_is_refused() -> None:
    for source in ('codes = []\nX = "NIKA-DAG-004"\n',
                   'def f(codes):\n    return "NIKA-DAG-004"\n',
                   'from x import codes\nX = "NIKA-DAG-004"\n'):
        with pytest.raises(CODEMOD.Refusal, match="(binds the name|a local) `codes`"):
            CODEMOD.rewrite(source, REGISTRY, "m.py")


ALIASED = textwrap.dedent('''\
    from nika import codes

    READ_001 = codes.BUILTIN_READ_001
    SSRF = codes.SEC_005


    def fail() -> tuple[str, str]:
        return READ_001, SSRF
    ''')


def test_a_name_that_repeats_the_registry_is_inlined_a_role_name_stays() -> None:
    assert CODEMOD.inline_aliases(ALIASED) == textwrap.dedent('''\
        from nika import codes

        SSRF = codes.SEC_005


        def fail() -> tuple[str, str]:
            return codes.BUILTIN_READ_001, SSRF
        ''')
    assert CODEMOD.inline_aliases(ALIASED, frozenset({"READ_001"})) == ALIASED


def test_an_alias_read_in_an_fstring_rebound_or_shadowed_stays() -> None:
    for use in ('f"{READ_001}"', "[READ_001 := 1]", "lambda READ_001: READ_001"):
        source = f"from nika import codes\n\nREAD_001 = codes.BUILTIN_READ_001\nX = {use}\n"
        assert CODEMOD.inline_aliases(source) == source


def test_the_name_rule() -> None:
    assert CODEMOD.name_of("NIKA-BUILTIN-JSON_MERGE_PATCH-001") == "BUILTIN_JSON_MERGE_PATCH_001"
    assert CODEMOD.name_of("NIKA-DAG-004") == "DAG_004"


def test_a_run_sorts_the_import_and_rebreaks_what_a_longer_name_overflows(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(textwrap.dedent(f'''\
        from __future__ import annotations

        from nika.errors import NikaError

        READ_001 = "NIKA-BUILTIN-READ-001"


        def refuse() -> NikaError:
            return NikaError(READ_001, "{'x' * 40}", transient=False)
        '''), encoding="utf-8")
    done = CODEMOD.run([module])
    assert (done.converted, done.retired, done.changed, done.refusals) == (1, 1, (module,), ())
    assert module.read_text(encoding="utf-8") == textwrap.dedent(f'''\
        from __future__ import annotations

        from nika import codes
        from nika.errors import NikaError


        def refuse() -> NikaError:
            return NikaError(
                codes.BUILTIN_READ_001, "{'x' * 40}", transient=False
            )
        ''')
    again = CODEMOD.run([module])
    assert (again.converted, again.retired, again.changed) == (0, 0, ())
