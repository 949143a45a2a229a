"""The spec-17 journal as data, and its proofs: the typed frames (`frames`, their wire layout
`wire`), the event bus that carries them (`bus`), the hash-chained NDJSON writer (`writer`) and
reader (`decoded`, `verify`), what a run settled (`records`), the identities that key a task
(`identity`), resume planning and replay (`resume`, `replay`), the cost ledger (`ledger`) and
the run receipt (`receipt`, `receipt_schema`), the run list and its retention (`runs`), and
the one decode step for untrusted JSON (`untrusted`) they all start from. The workflow's
spec-grade identity is `semantic` (spec 15: a Semantic IR, RFC 8785 JCS, domain-separated
blake3, Merkle by task — what a receipt proves, apart from the resume keys), and `lock` the
single lock (`nika.lock`) a run may be held to. Nothing here imports `nika.run` or a view."""
