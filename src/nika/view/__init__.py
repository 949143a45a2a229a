"""What a person reads of a run: the live progress lines and the `--json` event stream, the run
report, `nika trace show` (text and HTML), the verify and receipt readings. It reads journal
data (`nika.journal`) and never executes: only the CLI and `nika.serve` import it."""
