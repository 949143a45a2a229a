"""The opt-in warm check server: `nika check` answered by a resident process.

`nika check --server FILE` (or `NIKA_CHECK_SERVER=1`) sends the check to a per-user server
over a Unix socket and prints exactly the bytes, and exits with exactly the code, the
in-process check would; on any problem it runs the check in-process instead. `client` is
the `nika` console entry (it imports almost nothing before it knows what to run), `server`
the resident process, `wire` what they share: the socket's place, the framing, the key.
"""
