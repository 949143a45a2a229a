"""The one table of error codes nika emits.

Rows come from spec 05-errors (the normative floor) and canon/diagnostics/registry.yaml;
engine additions are marked. `NikaError` looks its category and transience up here.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CodeInfo:
    """A registry row: the category, whether a retry may help, and a one-line summary."""

    category: str
    transient: bool
    summary: str


CODES: dict[str, CodeInfo] = {
    "NIKA-AGENT-001": CodeInfo("budget_error", False, "max_turns exhausted before completion"),
    "NIKA-AGENT-002": CodeInfo("budget_error", False, "max_tokens_total exhausted before completion"),
    "NIKA-AGENT-003": CodeInfo("validation_error", False, "a skills: path does not resolve"),
    "NIKA-AGENT-004": CodeInfo("validation_error", False, "a skills: file is not a valid Agent Skill"),
    "NIKA-AGENT-005": CodeInfo("budget_error", False, "the provider reported no token usage for a priced model"),
    "NIKA-AGENT-006": CodeInfo("budget_error", False, "the stall guard stopped a no-progress loop"),  # engine addition
    "NIKA-AGENT-007": CodeInfo("validation_error", False, "the router's embedding model cannot be loaded"),  # engine addition
    "NIKA-ASSERT-001": CodeInfo("validation_error", False, "⚰️ RESERVED, not emitted in v0.1"),
    "NIKA-AUTH-006": CodeInfo("security_error", False, "an absent permits: block"),
    "NIKA-AUTH-007": CodeInfo("security_error", False, "an interpolation reaches a permit BOUND"),
    "NIKA-AUTH-008": CodeInfo("security_error", False, "an untrusted value reaches a permitted verb's ARGUMENT and its cano..."),
    "NIKA-AUTH-009": CodeInfo("security_error", False, "an env: entry naming one of the engine's dangerous variables"),
    "NIKA-AUTH-010": CodeInfo("security_error", False, "a net.http entry carrying a * anywhere but as the whole bare-* entry"),
    "NIKA-AUTH-011": CodeInfo("validation_error", False, "a lift: entry whose named law would not have fired on this task"),
    "NIKA-BUILTIN-001": CodeInfo("validation_error", False, "builtin invoke: violates its statically-checkable arg contract"),
    "NIKA-BUILTIN-ASSERT-001": CodeInfo("tool_error", False, "nika:assert condition is false"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-COMPOSE-001": CodeInfo("validation_error", False, "nika:compose invoked outside an agent: loop"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-CONVERT-001": CodeInfo("validation_error", False, "nika:convert identity conversion or a bad arg"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-CONVERT-002": CodeInfo("tool_error", False, "nika:convert input does not parse as from:"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-DATE-001": CodeInfo("validation_error", False, "nika:date unparseable input, unknown op or bad tz"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-DONE-001": CodeInfo("validation_error", False, "nika:done invoked outside an agent: loop"),
    "NIKA-BUILTIN-EDIT-001": CodeInfo("tool_error", False, "nika:edit find: matched nothing (or a non-integer count:)"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-EDIT-002": CodeInfo("tool_error", False, "nika:edit IO failure"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-EMIT-001": CodeInfo("validation_error", False, "nika:emit invalid event shape"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-FETCH-001": CodeInfo("network_error", False, "nika:fetch network/extraction failure (transience engine-assessed)"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-GLOB-001": CodeInfo("validation_error", False, "nika:glob invalid pattern"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-GLOB-002": CodeInfo("tool_error", False, "nika:glob walked more than 1,000,000 entries or matched more than 100,000 paths"),  # engine addition
    "NIKA-BUILTIN-GREP-001": CodeInfo("validation_error", False, "nika:grep invalid pattern"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-GREP-002": CodeInfo("tool_error", False, "nika:grep search root does not exist"),  # engine addition
    "NIKA-BUILTIN-GREP-003": CodeInfo("tool_error", False, "nika:grep read more than 256 MiB, walked more than 1,000,000 entries or matched more than 10,000 lines"),  # engine addition
    "NIKA-BUILTIN-HASH-002": CodeInfo("validation_error", False, "nika:hash content over the 32 MiB cap"),  # engine addition
    "NIKA-BUILTIN-HASH-001": CodeInfo("validation_error", False, "nika:hash unsupported algo, unknown op or a missing per-op arg"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-IMAGE_GENERATE-002": CodeInfo("validation_error", False, "nika:image_generate provider unavailable (image plane unwired)"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-INSPECT-001": CodeInfo("validation_error", False, "nika:inspect view: outside the canonical enum"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-JQ-001": CodeInfo("tool_error", False, "nika:jq program error at runtime"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-JSON_DIFF-001": CodeInfo("validation_error", False, "nika:json_diff non-JSON input"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-JSON_MERGE_PATCH-001": CodeInfo("validation_error", False, "nika:json_merge_patch non-object target/patch"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-NOTIFY-001": CodeInfo("validation_error", False, "nika:notify channel unconfigured"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-NOTIFY-002": CodeInfo("network_error", True, "nika:notify delivery failed"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-PROMPT-001": CodeInfo("validation_error", False, "nika:prompt non-interactive without a default:"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-PROMPT-002": CodeInfo("validation_error", False, "nika:prompt choice default: not among choices:"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-PROMPT-003": CodeInfo("validation_error", False, "an --answer does not fit the prompt's mode or choices"),  # engine addition
    "NIKA-BUILTIN-READ-001": CodeInfo("tool_error", False, "nika:read file not found"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-READ-002": CodeInfo("tool_error", False, "nika:read IO failure"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-READ-003": CodeInfo("tool_error", False, "nika:read text mode on non-UTF-8 content"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-TTS_GENERATE-001": CodeInfo("validation_error", False, "nika:tts_generate invalid arguments"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-TTS_GENERATE-002": CodeInfo("validation_error", False, "nika:tts_generate provider unavailable"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-TTS_GENERATE-006": CodeInfo("tool_error", False, "nika:tts_generate save failed"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-VALIDATE-001": CodeInfo("validation_error", False, "nika:validate schema: is not a valid JSON Schema"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-VALIDATE-002": CodeInfo("validation_error", False, "nika:validate format: yaml input does not parse"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-WAIT-001": CodeInfo("timeout_error", False, "nika:wait absolute wait beyond its timeout:"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-WAIT-002": CodeInfo("validation_error", False, "nika:wait until: is in the past"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-WAIT-003": CodeInfo("validation_error", False, "nika:wait needs exactly one of duration: or until:"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-WRITE-001": CodeInfo("tool_error", False, "nika:write IO failure or a missing parent"),  # stdlib builtins-v0.1
    "NIKA-BUILTIN-WRITE-002": CodeInfo("tool_error", False, "nika:write overwrite: false and the path exists"),  # stdlib builtins-v0.1
    "NIKA-CANCEL-001": CodeInfo("cancelled", False, "task cancelled"),
    "NIKA-CLI-001": CodeInfo("validation_error", False, "a nika run argument is unusable (a --report target that cannot be written)"),  # engine addition
    "NIKA-CLUSTER-001": CodeInfo("network_error", True, "the cluster worker or node running a verb attempt died before it answered"),  # engine addition
    "NIKA-CLUSTER-002": CodeInfo("network_error", False, "the driver lost (or never reached) the Ray cluster"),  # engine addition
    "NIKA-CLUSTER-003": CodeInfo("validation_error", False, "the Ray executor's configuration is refused (extra not installed, bad NIKA_RAY_RESOURCES)"),  # engine addition
    "NIKA-COMP-001": CodeInfo("validation_error", False, "an invoke: workflow: target is not statically resolvable"),
    "NIKA-COMP-002": CodeInfo("security_error", False, "the child workflow's effect boundary exceeds Authority"),
    "NIKA-COMP-003": CodeInfo("validation_error", False, "the static call graph is not acyclic"),
    "NIKA-COMP-004": CodeInfo("validation_error", False, "the typed call does not compose"),
    "NIKA-DAG-001": CodeInfo("validation_error", False, "cycle in the precedence graph G_p = E_d ∪ E_c"),
    "NIKA-DAG-002": CodeInfo("validation_error", False, "with:/after: references an undeclared task"),
    "NIKA-DAG-004": CodeInfo("validation_error", False, "on_error.recover references a task downstream of the declaring task"),
    "NIKA-DAG-005": CodeInfo("validation_error", False, "after: predicate outside the closed set"),
    "NIKA-DAG-006": CodeInfo("validation_error", False, "statically dead task"),
    "NIKA-DAG-007": CodeInfo("validation_error", False, "status compared against a literal outside the vocabulary"),
    "NIKA-DAG-008": CodeInfo("validation_error", False, "a ${{ group.<name> }} fold names a group no task declares"),
    "NIKA-DAG-009": CodeInfo("validation_error", False, "an unwind task declares group:"),
    "NIKA-DAG-010": CodeInfo("validation_error", False, "the run cannot progress: every unsettled task waits on another (the run-time await-cycle backstop of NIKA-DAG-004, LAW-GRAPH-0304)"),  # engine addition
    "NIKA-DECIDE-001": CodeInfo("validation_error", False, "the decision bundle is malformed or violates its own laws"),
    "NIKA-DECIDE-002": CodeInfo("validation_error", False, "the evidence snapshot does not satisfy the bundle's evidence schema"),
    "NIKA-DEFAULT-001": CodeInfo("validation_error", False, "a default: that does not conform to its own type:"),
    "NIKA-DRIFT-001": CodeInfo("validation_error", False, "declared-but-unused"),
    "NIKA-EXEC-001": CodeInfo("process_error", False, "non-zero exit code"),
    "NIKA-EXEC-002": CodeInfo("process_error", False, "spawn failure"),
    "NIKA-EXEC-003": CodeInfo("process_error", False, "the command wrote more than the 32 MiB capture cap to stdout or stderr"),  # engine addition
    "NIKA-IMPL-001": CodeInfo("internal_error", False, "engine internal error"),  # engine addition
    "NIKA-IMPL-002": CodeInfo("validation_error", False, "a declared builtin this engine does not support"),  # engine addition
    "NIKA-INFER-001": CodeInfo("provider_error", True, "provider call failed"),
    "NIKA-INFER-002": CodeInfo("validation_error", False, "structured output failed schema: validation"),
    "NIKA-INFER-003": CodeInfo("validation_error", False, "the provider reported no token usage for a priced model"),
    "NIKA-INFER-004": CodeInfo("validation_error", False, "the provider spent tokens yet the visible answer is empty"),
    "NIKA-INPUT-001": CodeInfo("validation_error", False, "a required input was not supplied at launch"),  # engine addition
    "NIKA-INPUT-002": CodeInfo("validation_error", False, "--var names no declared input, or is not key=value"),  # engine addition
    "NIKA-INPUT-003": CodeInfo("validation_error", False, "a supplied input does not fit its declared type"),  # engine addition
    "NIKA-INVOKE-001": CodeInfo("validation_error", False, "unknown tool"),
    "NIKA-INVOKE-002": CodeInfo("validation_error", False, "tool args failed the tool's schema"),
    "NIKA-LOCK-001": CodeInfo("validation_error", False, "a dependency resolved that nika.lock does not pin, or a hand-edited..."),
    "NIKA-MCP-001": CodeInfo("tool_error", True, "MCP server not configured / not reachable at call time"),
    "NIKA-MCP-002": CodeInfo("tool_error", True, "MCP tool call failed"),
    "NIKA-MCP-003": CodeInfo("security_error", False, "the pinned MCP tool's description drifted from the lockfile"),
    "NIKA-MCP-004": CodeInfo("security_error", False, "the MCP pin lockfile exists but cannot be trusted"),
    "NIKA-MCP-005": CodeInfo("process_error", False, "the OS sandbox refused the MCP server spawn"),
    "NIKA-PARSE-001": CodeInfo("parse_error", False, "the YAML itself does not parse"),
    "NIKA-PARSE-002": CodeInfo("validation_error", False, "missing envelope field"),
    "NIKA-PARSE-003": CodeInfo("parse_error", False, "nika: is not a kebab-case id"),
    "NIKA-PARSE-004": CodeInfo("validation_error", False, "RESERVED"),
    "NIKA-PARSE-005": CodeInfo("validation_error", False, "unknown field"),
    "NIKA-PARSE-006": CodeInfo("validation_error", False, "task id violates ^[a-z][a-z0-9_]*$"),
    "NIKA-PARSE-007": CodeInfo("validation_error", False, "duplicate task id within the workflow"),
    "NIKA-PARSE-008": CodeInfo("validation_error", False, "task declares no verb"),
    "NIKA-PARSE-009": CodeInfo("validation_error", False, "task declares multiple verbs"),
    "NIKA-PARSE-010": CodeInfo("validation_error", False, "timeout: violates the quoted Go-duration contract"),
    "NIKA-PARSE-011": CodeInfo("validation_error", False, "retry: block violates the spec shape"),
    "NIKA-PARSE-012": CodeInfo("validation_error", False, "on_error: block violates the spec shape"),
    "NIKA-PARSE-013": CodeInfo("validation_error", False, "with:/extract: binding uses a reserved name"),
    "NIKA-PARSE-014": CodeInfo("validation_error", False, "secrets: entry is not a store reference"),
    "NIKA-PARSE-017": CodeInfo("validation_error", False, "duplicate mapping key"),
    "NIKA-PARSE-018": CodeInfo("validation_error", False, "missing required field in a verb body"),
    "NIKA-PARSE-019": CodeInfo("validation_error", False, "generic structural validation"),
    "NIKA-PARSE-022": CodeInfo("validation_error", False, "tasks: is a sequence"),
    "NIKA-PARSE-023": CodeInfo("validation_error", False, "a task carries an id: field"),
    "NIKA-PARSE-024": CodeInfo("validation_error", False, "a task carries depends_on:"),
    "NIKA-PARSE-025": CodeInfo("validation_error", False, "decode: with capture: structured"),
    "NIKA-PARSE-026": CodeInfo("validation_error", False, "a declared entropy × clock contradiction"),
    "NIKA-PARSE-027": CodeInfo("validation_error", False, "the other declared contradiction"),
    "NIKA-PARSE-028": CodeInfo("validation_error", False, "entropy: none while a structural randomness source is consumed"),
    "NIKA-PORT-001": CodeInfo("validation_error", False, "a gateway artifact"),
    "NIKA-PORT-002": CodeInfo("security_error", False, "authority lowering is permissive_unsafe"),
    "NIKA-PROVIDER-001": CodeInfo("validation_error", False, "model: names an unknown provider prefix"),  # engine addition
    "NIKA-PROVIDER-002": CodeInfo("provider_error", False, "a cloud provider's API key is not set"),  # engine addition
    "NIKA-REG-001": CodeInfo("validation_error", False, "the name has no entry in the registry index"),
    "NIKA-REG-002": CodeInfo("security_error", False, "the registry's advisory metadata refuses the resolution"),
    "NIKA-REG-003": CodeInfo("security_error", False, "the artifact's sha256 differs from the registry entry's pin"),
    "NIKA-REG-004": CodeInfo("security_error", False, "the local cache's bytes or tier diverge from the registry entry's a..."),
    "NIKA-REG-005": CodeInfo("validation_error", False, "the registry index document is not a well-formed index"),
    "NIKA-REG-006": CodeInfo("security_error", False, "the entry's minisign signature does not verify"),
    "NIKA-REG-007": CodeInfo("security_error", False, "the signing key changed between releases"),
    "NIKA-REG-008": CodeInfo("security_error", False, "the entry's provenance tier sits below the operator's admission floor"),
    "NIKA-RESUME-001": CodeInfo("security_error", False, "the --resume journal's chain does not verify (edited, reordered, cut mid-journal, over a bound)"),  # engine addition
    "NIKA-RESUME-002": CodeInfo("validation_error", False, "the --resume journal was recorded by another engine version and no matching --resume-compat was declared"),  # engine addition
    "NIKA-RESUME-003": CodeInfo("validation_error", False, "the --resume journal cannot be read or is not a journal"),  # engine addition
    "NIKA-RESUME-004": CodeInfo("validation_error", False, "--from or --answer names no fitting task of the workflow"),  # engine addition
    "NIKA-SEC-001": CodeInfo("security_error", False, "exec: blocklist hit"),
    "NIKA-SEC-002": CodeInfo("security_error", False, "agent tool call outside the tools: whitelist"),
    "NIKA-SEC-003": CodeInfo("security_error", False, "run-recursion bound"),
    "NIKA-SEC-004": CodeInfo("security_error", False, "effect outside the declared permits: capability boundary"),
    "NIKA-SEC-005": CodeInfo("security_error", False, "SSRF block"),
    "NIKA-SEC-006": CodeInfo("security_error", False, "secret flow"),
    "NIKA-SEC-007": CodeInfo("security_error", False, "secret egress"),
    "NIKA-SEC-008": CodeInfo("security_error", False, "a nika:fetch whose RESOLVED URL path names a data-as-code class"),
    "NIKA-SEC-009": CodeInfo("security_error", False, "lethal trifecta complete"),
    "NIKA-SEC-010": CodeInfo("security_error", False, "the approval-capability law is violated"),
    "NIKA-SEC-011": CodeInfo("security_error", False, "preview-commit divergence"),
    "NIKA-SEC-012": CodeInfo("security_error", False, "unordered shared writes"),
    "NIKA-SEC-014": CodeInfo("security_error", False, "the affirmative-consent law"),
    "NIKA-SEC-015": CodeInfo("security_error", False, "the order law"),
    "NIKA-SECRET-001": CodeInfo("validation_error", False, "a declared secret's store cannot be read at launch"),  # engine addition
    "NIKA-TIMEOUT-001": CodeInfo("timeout_error", False, "task"),
    "NIKA-TYPE-001": CodeInfo("validation_error", False, "unknown type name"),
    "NIKA-TYPE-003": CodeInfo("validation_error", False, "returns: and schema: on the same task"),
    "NIKA-TYPE-004": CodeInfo("validation_error", False, "returns: type unreachable from the declared decode:"),
    "NIKA-TYPE-005": CodeInfo("security_error", False, "a secret-carrying type in a lowered position"),
    "NIKA-TYPE-006": CodeInfo("validation_error", False, "regex pattern outside the locked dialect"),
    "NIKA-TYPE-101": CodeInfo("validation_error", False, "run-time contract violation"),
    "NIKA-VALUES-001": CodeInfo("validation_error", False, "the pre-flip envelope vars: block"),
    "NIKA-VALUES-002": CodeInfo("validation_error", False, "the pre-flip envelope env: block"),
    "NIKA-VALUES-003": CodeInfo("validation_error", False, "a value-namespace read outside the three-authority family"),
    "NIKA-VAR-001": CodeInfo("variable_error", False, "unresolved reference"),
    "NIKA-VAR-002": CodeInfo("variable_error", False, "binding cardinality"),
    "NIKA-VAR-003": CodeInfo("validation_error", False, "provably-invalid path into a declared schema:"),
    "NIKA-VAR-004": CodeInfo("variable_error", False, "jq runtime error while evaluating a binding"),
    "NIKA-VAR-005": CodeInfo("validation_error", False, "static expression violation"),
    "NIKA-VAR-006": CodeInfo("variable_error", False, "expression type error at evaluation"),
    "NIKA-VAR-007": CodeInfo("variable_error", False, "bytes value substituted into a string position"),
    "NIKA-VAR-008": CodeInfo("validation_error", False, "unclosed ${{ opener"),
    "NIKA-VAR-009": CodeInfo("validation_error", False, "typed outputs value did not match its declared type: at run end"),
    "NIKA-VAR-020": CodeInfo("validation_error", False, "bare tasks.X is the envelope, not a value"),
    "NIKA-VAR-021": CodeInfo("validation_error", False, "a tasks.* reference outside the boundary"),
    "NIKA-YAML-001": CodeInfo("parse_error", False, "anchor node present"),
    "NIKA-YAML-002": CodeInfo("parse_error", False, "alias node present"),
    "NIKA-YAML-003": CodeInfo("parse_error", False, "merge key << present"),
    "NIKA-YAML-004": CodeInfo("parse_error", False, "duplicate mapping key"),
    "NIKA-YAML-005": CodeInfo("parse_error", False, "scalar length > 65536 bytes"),
    "NIKA-YAML-006": CodeInfo("parse_error", False, "custom tag present"),
    "NIKA-YAML-007": CodeInfo("parse_error", False, "non-string mapping key"),
    "NIKA-YAML-008": CodeInfo("parse_error", False, "non-finite float scalar"),
    "NIKA-YAML-009": CodeInfo("parse_error", False, "document depth > 64 levels"),
    "NIKA-YAML-010": CodeInfo("parse_error", False, "document size > 1048576 bytes"),
    "NIKA-YAML-011": CodeInfo("parse_error", False, "BOM present, or source bytes not NFC-normalized"),
    "NIKA-YAML-012": CodeInfo("parse_error", False, "decimal integer scalar longer than 4300 digits"),  # engine addition
}
