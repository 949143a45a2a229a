"""The one table of error codes nika emits, and the names the source spells them by.

Rows come from spec 05-errors (the normative floor) and canon/diagnostics/registry.yaml;
engine additions are marked. Each row is one line that both names the code and registers it,
so a name without a row (or a row without a name) cannot be written: call sites say
`NikaError(codes.DAG_004, ...)`, never the bare string, and `NikaError` refuses a code that
has no row here. A name is its code without `NIKA-`, dashes as underscores (pinned by a test).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class CodeInfo:
    """A registry row: the category, whether a retry may help, and a one-line summary."""

    category: str
    transient: bool
    summary: str


CODES: Final[dict[str, CodeInfo]] = {}
"""Every row by its wire code; filled by the `_row` lines below and nowhere else."""


def _row(code: str, category: str, transient: bool, summary: str) -> str:
    """Register one row and return its code, so the constant and its row are one line."""
    if code in CODES:
        raise ValueError(f"{code} has two registry rows; keep one")
    CODES[code] = CodeInfo(category, transient, summary)
    return code


AGENT_001: Final = _row("NIKA-AGENT-001", "budget_error", False, "max_turns exhausted before completion")
AGENT_002: Final = _row("NIKA-AGENT-002", "budget_error", False, "max_tokens_total exhausted before completion")
AGENT_003: Final = _row("NIKA-AGENT-003", "validation_error", False, "a skills: path does not resolve")
AGENT_004: Final = _row("NIKA-AGENT-004", "validation_error", False, "a skills: file is not a valid Agent Skill")
AGENT_005: Final = _row("NIKA-AGENT-005", "budget_error", False, "the provider reported no token usage for a priced model")
AGENT_006: Final = _row("NIKA-AGENT-006", "budget_error", False, "the stall guard stopped a no-progress loop")  # engine addition
AGENT_007: Final = _row("NIKA-AGENT-007", "validation_error", False, "the router's embedding model cannot be loaded")  # engine addition
ASSERT_001: Final = _row("NIKA-ASSERT-001", "validation_error", False, "⚰️ RESERVED, not emitted in v0.1")
AUTH_006: Final = _row("NIKA-AUTH-006", "security_error", False, "an absent permits: block")
AUTH_007: Final = _row("NIKA-AUTH-007", "security_error", False, "an interpolation reaches a permit BOUND")
AUTH_008: Final = _row("NIKA-AUTH-008", "security_error", False, "an untrusted value reaches a permitted verb's ARGUMENT and its cano...")
AUTH_009: Final = _row("NIKA-AUTH-009", "security_error", False, "an env: entry naming one of the engine's dangerous variables")
AUTH_010: Final = _row("NIKA-AUTH-010", "security_error", False, "a net.http entry carrying a * anywhere but as the whole bare-* entry")
AUTH_011: Final = _row("NIKA-AUTH-011", "validation_error", False, "a lift: entry whose named law would not have fired on this task")
BUILTIN_001: Final = _row("NIKA-BUILTIN-001", "validation_error", False, "builtin invoke: violates its statically-checkable arg contract")
BUILTIN_ASSERT_001: Final = _row("NIKA-BUILTIN-ASSERT-001", "tool_error", False, "nika:assert condition is false")  # stdlib builtins-v0.1
BUILTIN_CHART_001: Final = _row("NIKA-BUILTIN-CHART-001", "validation_error", False, "nika:chart data holds no rows")  # stdlib builtins-v0.1
BUILTIN_CHART_002: Final = _row("NIKA-BUILTIN-CHART-002", "validation_error", False, "nika:chart names a field no row holds")  # stdlib builtins-v0.1
BUILTIN_CHART_003: Final = _row("NIKA-BUILTIN-CHART-003", "validation_error", False, "nika:chart data holds a non-finite (or unrenderably large) number")  # stdlib builtins-v0.1
BUILTIN_CHART_004: Final = _row("NIKA-BUILTIN-CHART-004", "validation_error", False, "nika:chart invalid spec or a value outside a closed enum")  # stdlib builtins-v0.1
BUILTIN_CHART_005: Final = _row("NIKA-BUILTIN-CHART-005", "validation_error", False, "nika:chart an axis domain collapsed below the renderable resolution")  # stdlib builtins-v0.1
BUILTIN_CHART_006: Final = _row("NIKA-BUILTIN-CHART-006", "validation_error", False, "nika:chart a field's values do not fit its role (type mismatch)")  # stdlib builtins-v0.1
BUILTIN_CHART_007: Final = _row("NIKA-BUILTIN-CHART-007", "validation_error", False, "nika:chart too many points, categories or series")  # stdlib builtins-v0.1
BUILTIN_CHART_008: Final = _row("NIKA-BUILTIN-CHART-008", "tool_error", False, "nika:chart I/O failure reading data or writing the artifact")  # stdlib builtins-v0.1
BUILTIN_COMPOSE_001: Final = _row("NIKA-BUILTIN-COMPOSE-001", "validation_error", False, "nika:compose invoked outside an agent: loop")  # stdlib builtins-v0.1
BUILTIN_CONVERT_001: Final = _row("NIKA-BUILTIN-CONVERT-001", "validation_error", False, "nika:convert identity conversion or a bad arg")  # stdlib builtins-v0.1
BUILTIN_CONVERT_002: Final = _row("NIKA-BUILTIN-CONVERT-002", "tool_error", False, "nika:convert input does not parse as from:")  # stdlib builtins-v0.1
BUILTIN_DATE_001: Final = _row("NIKA-BUILTIN-DATE-001", "validation_error", False, "nika:date unparseable input, unknown op or bad tz")  # stdlib builtins-v0.1
BUILTIN_DONE_001: Final = _row("NIKA-BUILTIN-DONE-001", "validation_error", False, "nika:done invoked outside an agent: loop")
BUILTIN_EDIT_001: Final = _row("NIKA-BUILTIN-EDIT-001", "tool_error", False, "nika:edit find: matched nothing (or a non-integer count:)")  # stdlib builtins-v0.1
BUILTIN_EDIT_002: Final = _row("NIKA-BUILTIN-EDIT-002", "tool_error", False, "nika:edit IO failure")  # stdlib builtins-v0.1
BUILTIN_EMIT_001: Final = _row("NIKA-BUILTIN-EMIT-001", "validation_error", False, "nika:emit invalid event shape")  # stdlib builtins-v0.1
BUILTIN_FETCH_001: Final = _row("NIKA-BUILTIN-FETCH-001", "network_error", False, "nika:fetch network/extraction failure (transience engine-assessed)")  # stdlib builtins-v0.1
BUILTIN_GLOB_001: Final = _row("NIKA-BUILTIN-GLOB-001", "validation_error", False, "nika:glob invalid pattern")  # stdlib builtins-v0.1
BUILTIN_GLOB_002: Final = _row("NIKA-BUILTIN-GLOB-002", "tool_error", False, "nika:glob walked more than 1,000,000 entries or matched more than 100,000 paths")  # engine addition
BUILTIN_GREP_001: Final = _row("NIKA-BUILTIN-GREP-001", "validation_error", False, "nika:grep invalid pattern")  # stdlib builtins-v0.1
BUILTIN_GREP_002: Final = _row("NIKA-BUILTIN-GREP-002", "tool_error", False, "nika:grep search root does not exist")  # engine addition
BUILTIN_GREP_003: Final = _row("NIKA-BUILTIN-GREP-003", "tool_error", False, "nika:grep read more than 256 MiB, walked more than 1,000,000 entries or matched more than 10,000 lines")  # engine addition
BUILTIN_HASH_002: Final = _row("NIKA-BUILTIN-HASH-002", "validation_error", False, "nika:hash content over the 32 MiB cap")  # engine addition
BUILTIN_HASH_001: Final = _row("NIKA-BUILTIN-HASH-001", "validation_error", False, "nika:hash unsupported algo, unknown op or a missing per-op arg")  # stdlib builtins-v0.1
BUILTIN_IMAGE_GENERATE_001: Final = _row("NIKA-BUILTIN-IMAGE_GENERATE-001", "validation_error", False, "nika:image_generate invalid arguments (incl. the v0.1 reserved options)")  # stdlib builtins-v0.1
BUILTIN_IMAGE_GENERATE_002: Final = _row("NIKA-BUILTIN-IMAGE_GENERATE-002", "validation_error", False, "nika:image_generate provider unavailable (missing credentials / image plane unwired)")  # stdlib builtins-v0.1
BUILTIN_IMAGE_GENERATE_003: Final = _row("NIKA-BUILTIN-IMAGE_GENERATE-003", "network_error", True, "nika:image_generate provider request failed")  # stdlib builtins-v0.1
BUILTIN_IMAGE_GENERATE_004: Final = _row("NIKA-BUILTIN-IMAGE_GENERATE-004", "tool_error", False, "nika:image_generate no image / malformed response")  # stdlib builtins-v0.1
BUILTIN_IMAGE_GENERATE_005: Final = _row("NIKA-BUILTIN-IMAGE_GENERATE-005", "security_error", False, "nika:image_generate content policy block")  # stdlib builtins-v0.1
BUILTIN_IMAGE_GENERATE_006: Final = _row("NIKA-BUILTIN-IMAGE_GENERATE-006", "tool_error", False, "nika:image_generate save/manifest write failed")  # stdlib builtins-v0.1
BUILTIN_IMAGE_GENERATE_007: Final = _row("NIKA-BUILTIN-IMAGE_GENERATE-007", "tool_error", False, "nika:image_generate image validation failed (magic mismatch, dimension/byte bounds)")  # stdlib builtins-v0.1
BUILTIN_IMAGE_FX_001: Final = _row("NIKA-BUILTIN-IMAGE_FX-001", "validation_error", False, "nika:image_fx invalid arguments (unknown op, out-of-range param, extension mismatch)")  # stdlib builtins-v0.1
BUILTIN_IMAGE_FX_002: Final = _row("NIKA-BUILTIN-IMAGE_FX-002", "tool_error", False, "nika:image_fx input read failed")  # stdlib builtins-v0.1
BUILTIN_IMAGE_FX_003: Final = _row("NIKA-BUILTIN-IMAGE_FX-003", "validation_error", False, "nika:image_fx unsupported input format (non-PNG, exotic depth or interlace)")  # stdlib builtins-v0.1
BUILTIN_IMAGE_FX_004: Final = _row("NIKA-BUILTIN-IMAGE_FX-004", "tool_error", False, "nika:image_fx decode failed (structural corruption, CRC or Adler mismatch)")  # stdlib builtins-v0.1
BUILTIN_IMAGE_FX_005: Final = _row("NIKA-BUILTIN-IMAGE_FX-005", "security_error", False, "nika:image_fx decoded-pixel budget exceeded")  # stdlib builtins-v0.1
BUILTIN_IMAGE_FX_006: Final = _row("NIKA-BUILTIN-IMAGE_FX-006", "tool_error", False, "nika:image_fx artifact save failed")  # stdlib builtins-v0.1
BUILTIN_INSPECT_001: Final = _row("NIKA-BUILTIN-INSPECT-001", "validation_error", False, "nika:inspect view: outside the canonical enum")  # stdlib builtins-v0.1
BUILTIN_JQ_001: Final = _row("NIKA-BUILTIN-JQ-001", "tool_error", False, "nika:jq program error at runtime")  # stdlib builtins-v0.1
BUILTIN_JSON_DIFF_001: Final = _row("NIKA-BUILTIN-JSON_DIFF-001", "validation_error", False, "nika:json_diff non-JSON input")  # stdlib builtins-v0.1
BUILTIN_JSON_MERGE_PATCH_001: Final = _row("NIKA-BUILTIN-JSON_MERGE_PATCH-001", "validation_error", False, "nika:json_merge_patch non-object target/patch")  # stdlib builtins-v0.1
BUILTIN_NOTIFY_001: Final = _row("NIKA-BUILTIN-NOTIFY-001", "validation_error", False, "nika:notify channel unconfigured")  # stdlib builtins-v0.1
BUILTIN_NOTIFY_002: Final = _row("NIKA-BUILTIN-NOTIFY-002", "network_error", True, "nika:notify delivery failed")  # stdlib builtins-v0.1
BUILTIN_PROMPT_001: Final = _row("NIKA-BUILTIN-PROMPT-001", "validation_error", False, "nika:prompt non-interactive without a default:")  # stdlib builtins-v0.1
BUILTIN_PROMPT_002: Final = _row("NIKA-BUILTIN-PROMPT-002", "validation_error", False, "nika:prompt choice default: not among choices:")  # stdlib builtins-v0.1
BUILTIN_PROMPT_003: Final = _row("NIKA-BUILTIN-PROMPT-003", "validation_error", False, "an --answer does not fit the prompt's mode or choices")  # engine addition
BUILTIN_READ_001: Final = _row("NIKA-BUILTIN-READ-001", "tool_error", False, "nika:read file not found")  # stdlib builtins-v0.1
BUILTIN_READ_002: Final = _row("NIKA-BUILTIN-READ-002", "tool_error", False, "nika:read IO failure")  # stdlib builtins-v0.1
BUILTIN_READ_003: Final = _row("NIKA-BUILTIN-READ-003", "tool_error", False, "nika:read text mode on non-UTF-8 content")  # stdlib builtins-v0.1
BUILTIN_TTS_GENERATE_001: Final = _row("NIKA-BUILTIN-TTS_GENERATE-001", "validation_error", False, "nika:tts_generate invalid arguments")  # stdlib builtins-v0.1
BUILTIN_TTS_GENERATE_002: Final = _row("NIKA-BUILTIN-TTS_GENERATE-002", "validation_error", False, "nika:tts_generate provider unavailable")  # stdlib builtins-v0.1
BUILTIN_TTS_GENERATE_003: Final = _row("NIKA-BUILTIN-TTS_GENERATE-003", "network_error", False, "nika:tts_generate provider request failed (transient for 5xx/408/429, timeout, connection)")  # stdlib builtins-v0.1
BUILTIN_TTS_GENERATE_004: Final = _row("NIKA-BUILTIN-TTS_GENERATE-004", "tool_error", False, "nika:tts_generate provider returned empty audio")  # stdlib builtins-v0.1
BUILTIN_TTS_GENERATE_005: Final = _row("NIKA-BUILTIN-TTS_GENERATE-005", "security_error", False, "nika:tts_generate refused by the provider's content policy")  # stdlib builtins-v0.1
BUILTIN_TTS_GENERATE_006: Final = _row("NIKA-BUILTIN-TTS_GENERATE-006", "tool_error", False, "nika:tts_generate save failed")  # stdlib builtins-v0.1
BUILTIN_TTS_GENERATE_007: Final = _row("NIKA-BUILTIN-TTS_GENERATE-007", "tool_error", False, "nika:tts_generate payload is not audio, or exceeds the size cap")  # stdlib builtins-v0.1
BUILTIN_VALIDATE_001: Final = _row("NIKA-BUILTIN-VALIDATE-001", "validation_error", False, "nika:validate schema: is not a valid JSON Schema")  # stdlib builtins-v0.1
BUILTIN_VALIDATE_002: Final = _row("NIKA-BUILTIN-VALIDATE-002", "validation_error", False, "nika:validate format: yaml input does not parse")  # stdlib builtins-v0.1
BUILTIN_WAIT_001: Final = _row("NIKA-BUILTIN-WAIT-001", "timeout_error", False, "nika:wait absolute wait beyond its timeout:")  # stdlib builtins-v0.1
BUILTIN_WAIT_002: Final = _row("NIKA-BUILTIN-WAIT-002", "validation_error", False, "nika:wait until: is in the past")  # stdlib builtins-v0.1
BUILTIN_WAIT_003: Final = _row("NIKA-BUILTIN-WAIT-003", "validation_error", False, "nika:wait needs exactly one of duration: or until:")  # stdlib builtins-v0.1
BUILTIN_WRITE_001: Final = _row("NIKA-BUILTIN-WRITE-001", "tool_error", False, "nika:write IO failure or a missing parent")  # stdlib builtins-v0.1
BUILTIN_WRITE_002: Final = _row("NIKA-BUILTIN-WRITE-002", "tool_error", False, "nika:write overwrite: false and the path exists")  # stdlib builtins-v0.1
CANCEL_001: Final = _row("NIKA-CANCEL-001", "cancelled", False, "task cancelled")
CLI_001: Final = _row("NIKA-CLI-001", "validation_error", False, "a nika run argument is unusable (a --report target that cannot be written)")  # engine addition
CLI_002: Final = _row("NIKA-CLI-002", "validation_error", False, "a file named on the command line is not a regular file (FIFO, device, directory), is past its size bound, or standard input did not end within its deadline")  # engine addition
CLUSTER_001: Final = _row("NIKA-CLUSTER-001", "network_error", True, "the cluster worker or node running a verb attempt died before it answered")  # engine addition
CLUSTER_002: Final = _row("NIKA-CLUSTER-002", "network_error", False, "the driver lost (or never reached) the Ray cluster")  # engine addition
CLUSTER_003: Final = _row("NIKA-CLUSTER-003", "validation_error", False, "the Ray executor's configuration is refused (extra not installed, bad NIKA_RAY_RESOURCES)")  # engine addition
COMP_001: Final = _row("NIKA-COMP-001", "validation_error", False, "an invoke: workflow: target is not statically resolvable")
COMP_002: Final = _row("NIKA-COMP-002", "security_error", False, "the child workflow's effect boundary exceeds Authority")
COMP_003: Final = _row("NIKA-COMP-003", "validation_error", False, "the static call graph is not acyclic")
COMP_004: Final = _row("NIKA-COMP-004", "validation_error", False, "the typed call does not compose")
DAG_001: Final = _row("NIKA-DAG-001", "validation_error", False, "cycle in the precedence graph G_p = E_d ∪ E_c")
DAG_002: Final = _row("NIKA-DAG-002", "validation_error", False, "with:/after: references an undeclared task")
DAG_004: Final = _row("NIKA-DAG-004", "validation_error", False, "on_error.recover references a task downstream of the declaring task")
DAG_005: Final = _row("NIKA-DAG-005", "validation_error", False, "after: predicate outside the closed set")
DAG_006: Final = _row("NIKA-DAG-006", "validation_error", False, "statically dead task")
DAG_007: Final = _row("NIKA-DAG-007", "validation_error", False, "status compared against a literal outside the vocabulary")
DAG_008: Final = _row("NIKA-DAG-008", "validation_error", False, "a ${{ group.<name> }} fold names a group no task declares")
DAG_009: Final = _row("NIKA-DAG-009", "validation_error", False, "an unwind task declares group:")
DAG_010: Final = _row("NIKA-DAG-010", "validation_error", False, "the run cannot progress: every unsettled task waits on another (the run-time await-cycle backstop of NIKA-DAG-004, LAW-GRAPH-0304)")  # engine addition
DECIDE_001: Final = _row("NIKA-DECIDE-001", "validation_error", False, "the decision bundle is malformed or violates its own laws")
DECIDE_002: Final = _row("NIKA-DECIDE-002", "validation_error", False, "the evidence snapshot does not satisfy the bundle's evidence schema")
DEFAULT_001: Final = _row("NIKA-DEFAULT-001", "validation_error", False, "a default: that does not conform to its own type:")
DRIFT_001: Final = _row("NIKA-DRIFT-001", "validation_error", False, "declared-but-unused")
EXEC_001: Final = _row("NIKA-EXEC-001", "process_error", False, "non-zero exit code")
EXEC_002: Final = _row("NIKA-EXEC-002", "process_error", False, "spawn failure")
EXEC_003: Final = _row("NIKA-EXEC-003", "process_error", False, "the command wrote more than the 32 MiB capture cap to stdout or stderr")  # engine addition
IMPL_001: Final = _row("NIKA-IMPL-001", "internal_error", False, "engine internal error")  # engine addition
INFER_001: Final = _row("NIKA-INFER-001", "provider_error", True, "provider call failed")
INFER_002: Final = _row("NIKA-INFER-002", "validation_error", False, "structured output failed schema: validation")
INFER_003: Final = _row("NIKA-INFER-003", "validation_error", False, "the provider reported no token usage for a priced model")
INFER_004: Final = _row("NIKA-INFER-004", "validation_error", False, "the provider spent tokens yet the visible answer is empty")
INPUT_001: Final = _row("NIKA-INPUT-001", "validation_error", False, "a required input was not supplied at launch")  # engine addition
INPUT_002: Final = _row("NIKA-INPUT-002", "validation_error", False, "--var names no declared input, or is not key=value")  # engine addition
INPUT_003: Final = _row("NIKA-INPUT-003", "validation_error", False, "a supplied input does not fit its declared type")  # engine addition
INPUT_004: Final = _row("NIKA-INPUT-004", "validation_error", False, "hint: an optional input with no default binds null, which its type does not admit")  # engine addition
INVOKE_001: Final = _row("NIKA-INVOKE-001", "validation_error", False, "unknown tool")
INVOKE_002: Final = _row("NIKA-INVOKE-002", "validation_error", False, "tool args failed the tool's schema")
LOCK_001: Final = _row("NIKA-LOCK-001", "validation_error", False, "a dependency resolved that nika.lock does not pin, or a hand-edited...")
MCP_001: Final = _row("NIKA-MCP-001", "tool_error", True, "MCP server not configured / not reachable at call time")
MCP_002: Final = _row("NIKA-MCP-002", "tool_error", True, "MCP tool call failed")
MCP_003: Final = _row("NIKA-MCP-003", "security_error", False, "the pinned MCP tool's description drifted from the lockfile")
MCP_004: Final = _row("NIKA-MCP-004", "security_error", False, "the MCP pin lockfile exists but cannot be trusted")
MCP_005: Final = _row("NIKA-MCP-005", "process_error", False, "the OS sandbox refused the MCP server spawn")
PARSE_001: Final = _row("NIKA-PARSE-001", "parse_error", False, "the YAML itself does not parse")
PARSE_002: Final = _row("NIKA-PARSE-002", "validation_error", False, "missing envelope field")
PARSE_003: Final = _row("NIKA-PARSE-003", "parse_error", False, "nika: is not a kebab-case id")
PARSE_004: Final = _row("NIKA-PARSE-004", "validation_error", False, "RESERVED")
PARSE_005: Final = _row("NIKA-PARSE-005", "validation_error", False, "unknown field")
PARSE_006: Final = _row("NIKA-PARSE-006", "validation_error", False, "task id violates ^[a-z][a-z0-9_]*$")
PARSE_007: Final = _row("NIKA-PARSE-007", "validation_error", False, "duplicate task id within the workflow")
PARSE_008: Final = _row("NIKA-PARSE-008", "validation_error", False, "task declares no verb")
PARSE_009: Final = _row("NIKA-PARSE-009", "validation_error", False, "task declares multiple verbs")
PARSE_010: Final = _row("NIKA-PARSE-010", "validation_error", False, "timeout: violates the quoted Go-duration contract")
PARSE_011: Final = _row("NIKA-PARSE-011", "validation_error", False, "retry: block violates the spec shape")
PARSE_012: Final = _row("NIKA-PARSE-012", "validation_error", False, "on_error: block violates the spec shape")
PARSE_013: Final = _row("NIKA-PARSE-013", "validation_error", False, "with:/extract: binding uses a reserved name")
PARSE_014: Final = _row("NIKA-PARSE-014", "validation_error", False, "secrets: entry is not a store reference")
PARSE_017: Final = _row("NIKA-PARSE-017", "validation_error", False, "duplicate mapping key")
PARSE_018: Final = _row("NIKA-PARSE-018", "validation_error", False, "missing required field in a verb body")
PARSE_019: Final = _row("NIKA-PARSE-019", "validation_error", False, "generic structural validation")
PARSE_022: Final = _row("NIKA-PARSE-022", "validation_error", False, "tasks: is a sequence")
PARSE_023: Final = _row("NIKA-PARSE-023", "validation_error", False, "a task carries an id: field")
PARSE_024: Final = _row("NIKA-PARSE-024", "validation_error", False, "a task carries depends_on:")
PARSE_025: Final = _row("NIKA-PARSE-025", "validation_error", False, "decode: with capture: structured")
PARSE_026: Final = _row("NIKA-PARSE-026", "validation_error", False, "a declared entropy × clock contradiction")
PARSE_027: Final = _row("NIKA-PARSE-027", "validation_error", False, "the other declared contradiction")
PARSE_028: Final = _row("NIKA-PARSE-028", "validation_error", False, "entropy: none while a structural randomness source is consumed")
PORT_001: Final = _row("NIKA-PORT-001", "validation_error", False, "a gateway artifact")
PORT_002: Final = _row("NIKA-PORT-002", "security_error", False, "authority lowering is permissive_unsafe")
PROVIDER_001: Final = _row("NIKA-PROVIDER-001", "validation_error", False, "model: names an unknown provider prefix")  # engine addition
PROVIDER_002: Final = _row("NIKA-PROVIDER-002", "provider_error", False, "a cloud provider's API key is not set")  # engine addition
REG_001: Final = _row("NIKA-REG-001", "validation_error", False, "the name has no entry in the registry index")
REG_002: Final = _row("NIKA-REG-002", "security_error", False, "the registry's advisory metadata refuses the resolution")
REG_003: Final = _row("NIKA-REG-003", "security_error", False, "the artifact's sha256 differs from the registry entry's pin")
REG_004: Final = _row("NIKA-REG-004", "security_error", False, "the local cache's bytes or tier diverge from the registry entry's a...")
REG_005: Final = _row("NIKA-REG-005", "validation_error", False, "the registry index document is not a well-formed index")
REG_006: Final = _row("NIKA-REG-006", "security_error", False, "the entry's minisign signature does not verify")
REG_007: Final = _row("NIKA-REG-007", "security_error", False, "the signing key changed between releases")
REG_008: Final = _row("NIKA-REG-008", "security_error", False, "the entry's provenance tier sits below the operator's admission floor")
RESUME_001: Final = _row("NIKA-RESUME-001", "security_error", False, "the --resume journal's chain does not verify (edited, reordered, cut mid-journal, over a bound)")  # engine addition
RESUME_002: Final = _row("NIKA-RESUME-002", "validation_error", False, "the --resume journal was recorded by another engine version and no matching --resume-compat was declared")  # engine addition
RESUME_003: Final = _row("NIKA-RESUME-003", "validation_error", False, "the --resume journal cannot be read or is not a journal")  # engine addition
RESUME_004: Final = _row("NIKA-RESUME-004", "validation_error", False, "--from or --answer names no fitting task of the workflow")  # engine addition
RESUME_005: Final = _row("NIKA-RESUME-005", "security_error", False, "the --resume journal's head does not match the head pinned by --head")  # engine addition
RESUME_006: Final = _row("NIKA-RESUME-006", "validation_error", False, "--head is not a full 64-hex-digit sha256 head, or is passed without --resume")  # engine addition
RUN_1704: Final = _row("NIKA-RUN-1704", "budget_error", False, "the run crossed --max-cost-usd: a task unstarted at the crossing is cancelled (cause budget)")
SEC_001: Final = _row("NIKA-SEC-001", "security_error", False, "exec: blocklist hit")
SEC_002: Final = _row("NIKA-SEC-002", "security_error", False, "agent tool call outside the tools: whitelist")
SEC_003: Final = _row("NIKA-SEC-003", "security_error", False, "run-recursion bound")
SEC_004: Final = _row("NIKA-SEC-004", "security_error", False, "effect outside the declared permits: capability boundary")
SEC_005: Final = _row("NIKA-SEC-005", "security_error", False, "SSRF block")
SEC_006: Final = _row("NIKA-SEC-006", "security_error", False, "secret flow")
SEC_007: Final = _row("NIKA-SEC-007", "security_error", False, "secret egress")
SEC_008: Final = _row("NIKA-SEC-008", "security_error", False, "a nika:fetch whose RESOLVED URL path names a data-as-code class")
SEC_009: Final = _row("NIKA-SEC-009", "security_error", False, "lethal trifecta complete")
SEC_010: Final = _row("NIKA-SEC-010", "security_error", False, "the approval-capability law is violated")
SEC_011: Final = _row("NIKA-SEC-011", "security_error", False, "preview-commit divergence")
SEC_012: Final = _row("NIKA-SEC-012", "security_error", False, "unordered shared writes")
SEC_014: Final = _row("NIKA-SEC-014", "security_error", False, "the affirmative-consent law")
SEC_015: Final = _row("NIKA-SEC-015", "security_error", False, "the order law")
SERVE_001: Final = _row("NIKA-SERVE-001", "validation_error", False, "a server request names an unknown tool or carries arguments it does not take")  # engine addition
SERVE_002: Final = _row("NIKA-SERVE-002", "security_error", False, "a server request names a path outside the server's working directory")  # engine addition
SERVE_003: Final = _row("NIKA-SERVE-003", "validation_error", False, "a server message or document past the server's size bound")  # engine addition
SECRET_001: Final = _row("NIKA-SECRET-001", "validation_error", False, "a declared secret's store cannot be read at launch")  # engine addition
TIMEOUT_001: Final = _row("NIKA-TIMEOUT-001", "timeout_error", False, "task")
TYPE_001: Final = _row("NIKA-TYPE-001", "validation_error", False, "unknown type name")
TYPE_003: Final = _row("NIKA-TYPE-003", "validation_error", False, "returns: and schema: on the same task")
TYPE_004: Final = _row("NIKA-TYPE-004", "validation_error", False, "returns: type unreachable from the declared decode:")
TYPE_005: Final = _row("NIKA-TYPE-005", "security_error", False, "a secret-carrying type in a lowered position")
TYPE_006: Final = _row("NIKA-TYPE-006", "validation_error", False, "regex pattern outside the locked dialect")
TYPE_101: Final = _row("NIKA-TYPE-101", "validation_error", False, "run-time contract violation")
VALUES_001: Final = _row("NIKA-VALUES-001", "validation_error", False, "the pre-flip envelope vars: block")
VALUES_002: Final = _row("NIKA-VALUES-002", "validation_error", False, "the pre-flip envelope env: block")
VALUES_003: Final = _row("NIKA-VALUES-003", "validation_error", False, "a value-namespace read outside the three-authority family")
VAR_001: Final = _row("NIKA-VAR-001", "variable_error", False, "unresolved reference")
VAR_002: Final = _row("NIKA-VAR-002", "variable_error", False, "binding cardinality")
VAR_003: Final = _row("NIKA-VAR-003", "validation_error", False, "provably-invalid path into a declared schema:")
VAR_004: Final = _row("NIKA-VAR-004", "variable_error", False, "jq runtime error while evaluating a binding")
VAR_005: Final = _row("NIKA-VAR-005", "validation_error", False, "static expression violation")
VAR_006: Final = _row("NIKA-VAR-006", "variable_error", False, "expression type error at evaluation")
VAR_007: Final = _row("NIKA-VAR-007", "variable_error", False, "bytes value substituted into a string position")
VAR_008: Final = _row("NIKA-VAR-008", "validation_error", False, "unclosed ${{ opener")
VAR_009: Final = _row("NIKA-VAR-009", "validation_error", False, "typed outputs value did not match its declared type: at run end")
VAR_020: Final = _row("NIKA-VAR-020", "validation_error", False, "bare tasks.X is the envelope, not a value")
VAR_021: Final = _row("NIKA-VAR-021", "validation_error", False, "a tasks.* reference outside the boundary")
YAML_001: Final = _row("NIKA-YAML-001", "parse_error", False, "anchor node present")
YAML_002: Final = _row("NIKA-YAML-002", "parse_error", False, "alias node present")
YAML_003: Final = _row("NIKA-YAML-003", "parse_error", False, "merge key << present")
YAML_004: Final = _row("NIKA-YAML-004", "parse_error", False, "duplicate mapping key")
YAML_005: Final = _row("NIKA-YAML-005", "parse_error", False, "scalar length > 65536 bytes")
YAML_006: Final = _row("NIKA-YAML-006", "parse_error", False, "custom tag present")
YAML_007: Final = _row("NIKA-YAML-007", "parse_error", False, "non-string mapping key")
YAML_008: Final = _row("NIKA-YAML-008", "parse_error", False, "non-finite float scalar")
YAML_009: Final = _row("NIKA-YAML-009", "parse_error", False, "document depth > 64 levels")
YAML_010: Final = _row("NIKA-YAML-010", "parse_error", False, "document size > 1048576 bytes")
YAML_011: Final = _row("NIKA-YAML-011", "parse_error", False, "BOM present, or source bytes not NFC-normalized")
YAML_012: Final = _row("NIKA-YAML-012", "parse_error", False, "decimal integer scalar longer than 4300 digits")  # engine addition
