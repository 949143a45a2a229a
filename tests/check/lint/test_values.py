"""one-obvious-way /008, /009, /013, /011: how values are passed and shaped (02, 04, 09)."""

from __future__ import annotations

from collections.abc import Callable

Lints = Callable[..., list[tuple[str, str]]]


def test_008_fires_on_an_interpolated_shell_line_that_needs_no_shell(lints: Lints) -> None:
    src = """
    nika: w
    inputs:
      name: { type: string, default: "x" }
    tasks:
      greet:
        exec: { shell: "./greet.sh --name '${{ inputs.name }}'" }
    """
    assert lints(src, "one-obvious-way/008") == [("one-obvious-way/008", "greet")]


def test_008_silent_on_pipelines_plain_lines_and_argv(lints: Lints) -> None:
    src = """
    nika: w
    inputs:
      name: { type: string, default: "x" }
    tasks:
      piped:
        exec: { shell: "./greet.sh ${{ inputs.name }} | tr a-z A-Z" }
      plain:
        exec: { shell: "cargo build --release" }
      argv:
        exec: { command: ["./greet.sh", "${{ inputs.name }}"] }
    """
    assert lints(src, "one-obvious-way/008") == []


def test_009_fires_on_an_optional_trailing_iterator(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      read:
        invoke: { tool: "nika:read", args: { path: "u.json" } }
        extract:
          count: "length"
          names: ".users[].name[]?"
    """
    assert lints(src, "one-obvious-way/009") == [("one-obvious-way/009", "read")]


def test_009_silent_on_collected_indexed_and_literal_forms(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      read:
        invoke: { tool: "nika:read", args: { path: "u.json" } }
        extract:
          all: "[.users[].name]"
          first: ".users[0]"
          fallback: ".users // []"
    """
    assert lints(src, "one-obvious-way/009") == []


def test_013_fires_on_a_jq_task_reshaping_one_producer(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      fetch:
        invoke: { tool: "nika:read", args: { path: "items.json" } }
      names:
        with: { items: "${{ tasks.fetch.output.items }}" }
        invoke:
          tool: "nika:jq"
          args: { input: { list: "${{ with.items }}", n: 2 }, expression: ".list | map(.name)" }
    """
    assert lints(src, "one-obvious-way/013") == [("one-obvious-way/013", "names")]


def test_013_silent_on_joins_literals_fan_outs_and_typed_doors(lints: Lints) -> None:
    src = """
    nika: w
    const:
      title: "t"
    tasks:
      a: { invoke: { tool: "nika:read", args: { path: "a.json" } } }
      b: { invoke: { tool: "nika:read", args: { path: "b.json" } } }
      many:
        for_each: { items: ["x", "y"] }
        invoke: { tool: "nika:read", args: { path: "${{ item }}" } }
      joined:
        with: { left: "${{ tasks.a.output }}", right: "${{ tasks.b.output }}" }
        invoke:
          tool: "nika:jq"
          args: { input: ["${{ with.left }}", "${{ with.right }}"], expression: "add" }
      shaped:
        invoke:
          tool: "nika:jq"
          args: { input: { title: "${{ const.title }}" }, expression: "." }
      collected:
        with: { all: "${{ tasks.many.output }}" }
        invoke: { tool: "nika:jq", args: { input: "${{ with.all }}", expression: "length" } }
      typed:
        with: { rows: "${{ tasks.a.output }}" }
        invoke: { tool: "nika:jq", args: { input: "${{ with.rows }}", expression: "{n: length}" } }
        returns: { object: { n: integer } }
    """
    assert lints(src, "one-obvious-way/013") == []


def test_011_fires_on_a_schema_the_type_grammar_can_say(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      judge:
        agent:
          prompt: "Score it"
          model: "mock/echo"
          schema:
            type: object
            description: "a score"
            properties:
              score: { type: integer, minimum: 0, maximum: 10 }
              label: { type: [string, "null"] }
            required: [score, label]
            additionalProperties: false
    """
    assert lints(src, "one-obvious-way/011") == [("one-obvious-way/011", "judge")]


def test_011_silent_on_out_of_core_schemas(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      bounded_list:
        infer:
          prompt: "List three"
          model: "mock/echo"
          schema: { type: array, items: { type: string }, minItems: 3 }
      one_of:
        infer:
          prompt: "Pick"
          model: "mock/echo"
          schema: { oneOf: [{ type: string }, { type: integer }] }
      email:
        infer:
          prompt: "Mail"
          model: "mock/echo"
          schema: { type: string, format: email }
    """
    assert lints(src, "one-obvious-way/011") == []
