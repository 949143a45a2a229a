"""The proof room: what a run's record and its proofs are made of (spec 15 · 17).

`semantic` is the workflow's spec-grade identity (a Semantic IR, RFC 8785 JCS, domain-separated
blake3, Merkle by task); `untrusted` the bounded decoder every artifact a verifier reads goes
through. This room imports everything below the runtime and nothing above it.
"""
